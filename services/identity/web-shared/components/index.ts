export { ConfirmDialog, type ConfirmDialogProps } from './confirm-dialog.js';
export { CopyButton } from './copy-button.js';
export { EmptyState, ErrorNotice, Loading, PageHeader, Spinner } from './feedback.js';
export { Pagination, type PaginationProps } from './pagination.js';
export { StatusBadge, statusLabel } from './status-badge.js';
export { useAsync, type AsyncState } from './use-async.js';
export { LanguageToggle } from './language-toggle.js';
export { QrCanvas } from './qr-canvas.js';
export { NewPasswordField } from './new-password-field.js';
