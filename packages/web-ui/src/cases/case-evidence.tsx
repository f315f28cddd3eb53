import { useEffect, useRef, useState } from 'preact/hooks';
import { apiUrl } from '../api.js';
import { formatBytes, formatDateTime } from '../format.js';
import { useLanguage, useMessages } from '../i18n.js';
import { isImage, isVideo, shortHash } from './case-logic.js';
import type { CaseDetail, EvidenceRecord } from './case-types.js';
import { caseMessages } from './messages.js';

/** Same-origin and cookie-authenticated: the browser fetches the bytes itself, no public URL, no token. */
const fileUrl = (evidence: EvidenceRecord) => apiUrl(`/evidence/${evidence.id}/file`);

export function CaseEvidence({ verification }: { verification: CaseDetail }) {
  const t = useMessages(caseMessages);
  const [viewing, setViewing] = useState<EvidenceRecord | null>(null);
  const all = [...verification.documentEvidence, ...verification.selfieEvidence, ...verification.videoEvidence];
  return (
    <section class="card" aria-labelledby="evidence-title">
      <h2 id="evidence-title">{t('evidence')}</h2>
      {all.length === 0 ? <p class="muted">{t('noEvidence')}</p> : null}
      <ul class="evidence-list" data-testid="evidence-list">
        {all.map((evidence) => (
          <li key={evidence.id} class="evidence-item" data-evidence-type={evidence.evidenceType}>
            {verification.redactionRequestedAt ? (
              <div class="evidence-thumb placeholder" data-testid="evidence-redacted">
                {t('evidenceRedacted')}
              </div>
            ) : (
              <EvidencePreview evidence={evidence} onEnlarge={() => setViewing(evidence)} />
            )}
            <EvidenceFacts evidence={evidence} />
          </li>
        ))}
      </ul>
      <ImageViewer evidence={viewing} onClose={() => setViewing(null)} />
    </section>
  );
}

function EvidencePreview({ evidence, onEnlarge }: { evidence: EvidenceRecord; onEnlarge: () => void }) {
  const t = useMessages(caseMessages);
  const name = t(`evidenceType.${evidence.evidenceType}` as const);
  // Sniffing checks the header only, so stored bytes may still not decode (e.g. a truncated JPEG): say so instead of a broken-image icon.
  const [undecodable, setUndecodable] = useState(false);
  if (isImage(evidence.contentType)) {
    return undecodable ? (
      <div class="evidence-thumb placeholder" data-testid="preview-unavailable">
        {t('previewUnavailable')}
      </div>
    ) : (
      <button type="button" class="evidence-thumb" onClick={onEnlarge} aria-label={t('enlarge', { name })}>
        <img src={fileUrl(evidence)} alt={name} decoding="async" onError={() => setUndecodable(true)} />
      </button>
    );
  }
  if (isVideo(evidence.contentType)) {
    return (
      <video class="evidence-video" controls preload="metadata" src={fileUrl(evidence)} aria-label={name}>
        <a href={fileUrl(evidence)} download={evidence.originalFileName}>
          {t('download')}
        </a>
      </video>
    );
  }
  return <div class="evidence-thumb placeholder">{evidence.contentType}</div>;
}

function EvidenceFacts({ evidence }: { evidence: EvidenceRecord }) {
  const t = useMessages(caseMessages);
  const { language } = useLanguage();
  return (
    <dl class="evidence-facts">
      <dt class="visually-hidden">{t('evidenceKind')}</dt>
      <dd class="evidence-name">{t(`evidenceType.${evidence.evidenceType}` as const)}</dd>
      <dt class="visually-hidden">{t('fileName')}</dt>
      <dd>
        <bdi>{evidence.originalFileName}</bdi>
      </dd>
      <dt class="visually-hidden">{t('fileType')}</dt>
      <dd class="muted">
        <bdi>{evidence.contentType}</bdi> · <bdi>{formatBytes(evidence.fileSizeBytes, language)}</bdi>
      </dd>
      <dt class="visually-hidden">{t('sha256')}</dt>
      <dd class="muted">
        {/* One left-to-right unit, so the ellipsis stays after the hash in Arabic. */}
        <bdi>
          SHA-256{' '}
          <code title={evidence.sha256Hash} data-testid="evidence-hash">
            {shortHash(evidence.sha256Hash)}
          </code>
        </bdi>
      </dd>
      <dt class="visually-hidden">{t('uploaded')}</dt>
      <dd class="muted">{formatDateTime(evidence.uploadedAt, language)}</dd>
      <dt class="visually-hidden">{t('download')}</dt>
      <dd>
        <a href={fileUrl(evidence)} download={evidence.originalFileName}>
          {t('download')}
        </a>
      </dd>
    </dl>
  );
}

/** A modal <dialog>: the browser traps focus and Escape closes it (the `close` event tells us). */
function ImageViewer({ evidence, onClose }: { evidence: EvidenceRecord | null; onClose: () => void }) {
  const t = useMessages(caseMessages);
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (evidence && !element.open) element.showModal();
    if (!evidence && element.open) element.close();
  }, [evidence]);
  const name = evidence ? t(`evidenceType.${evidence.evidenceType}` as const) : '';
  return (
    <dialog ref={dialog} class="image-viewer" aria-label={name} onClose={onClose} data-testid="image-viewer">
      {evidence ? (
        <>
          <img src={fileUrl(evidence)} alt={name} />
          <form method="dialog" class="dialog-actions">
            <button type="submit" class="button">
              {t('close')}
            </button>
          </form>
        </>
      ) : null}
    </dialog>
  );
}
