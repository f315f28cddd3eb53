// Preact components shared by the services' web apps (each keeps its own styles and messages).
export { ChartDataTable, type ChartDataCell, type ChartDataRow, type ChartDataTableProps } from './chart-data-table.js';
export { LanguageSelect, type LanguageSelectProps } from './language-select.js';
export { interpolate, interpolate as fill } from './interpolate.js';
export { chartWidth, followContainerWidth } from './chart-size.js';
export { PageHeader, type PageHeaderProps } from './page-header.js';
