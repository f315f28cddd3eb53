import { useState } from 'preact/hooks';
import { apiUrl } from '@svc/web-ui/api';
import { isImage, isVideo } from '@svc/web-ui/cases/case-logic';
import type { CaseDetail, EvidenceRecord } from '@svc/web-ui/cases/case-types';
import { caseMessages } from '@svc/web-ui/cases/messages';
import { formatPercent } from '@svc/web-ui/format';
import { useLanguage, useMessages } from '@svc/web-ui/i18n';
import { consoleMessages } from '../messages.js';

/** Same-origin and cookie-authenticated; every fetch of the bytes is audited with the reviewer. */
const fileUrl = (evidence: EvidenceRecord) => apiUrl(`/evidence/${evidence.id}/file`);

export interface ViewState {
  zoom: number;
  rotation: number;
}
export const INITIAL_VIEW: ViewState = { zoom: 1, rotation: 0 };
export const zoomed = (view: ViewState, step: number): ViewState => ({ ...view, zoom: Math.min(4, Math.max(0.5, Math.round((view.zoom + step) * 100) / 100)) });
export const rotated = (view: ViewState): ViewState => ({ ...view, rotation: (view.rotation + 90) % 360 });

/** The document image(s) large, zoom and rotation held by the screen so its shortcuts drive them. */
export function DocumentViewer(props: { verification: CaseDetail; view: ViewState; onView: (view: ViewState) => void }) {
  const t = useMessages(consoleMessages);
  const tc = useMessages(caseMessages);
  const { language } = useLanguage();
  const images = props.verification.documentEvidence.filter((item) => isImage(item.contentType));
  const [index, setIndex] = useState(0);
  const shown = images[Math.min(index, images.length - 1)];
  return (
    <section class="card document-viewer" aria-labelledby="document-title">
      <div class="viewer-heading">
        <h2 id="document-title">{t('documentImages')}</h2>
        <div class="viewer-tools" role="toolbar" aria-label={t('documentImages')}>
          {images.length > 1
            ? images.map((item, position) => (
                <button key={item.id} type="button" class="button button-small button-quiet" aria-pressed={position === index} onClick={() => setIndex(position)}>
                  {tc(`evidenceType.${item.evidenceType}`)}
                </button>
              ))
            : null}
          <button type="button" class="button button-small" onClick={() => props.onView(zoomed(props.view, -0.25))} aria-label={t('zoomOut')} title={`${t('zoomOut')} (−)`}>
            −
          </button>
          <output class="zoom-level" aria-live="polite" data-testid="zoom-level">
            {t('zoomLevel', { percent: formatPercent(props.view.zoom, language, 0) })}
          </output>
          <button type="button" class="button button-small" onClick={() => props.onView(zoomed(props.view, 0.25))} aria-label={t('zoomIn')} title={`${t('zoomIn')} (+)`}>
            +
          </button>
          <button type="button" class="button button-small" onClick={() => props.onView(rotated(props.view))} aria-label={t('rotate')} title={`${t('rotate')} (O)`}>
            ⟳
          </button>
          <button type="button" class="button button-small button-quiet" onClick={() => props.onView(INITIAL_VIEW)}>
            {t('resetView')}
          </button>
        </div>
      </div>
      <div class="viewer-stage">
        {shown ? (
          <img
            src={fileUrl(shown)}
            alt={tc(`evidenceType.${shown.evidenceType}`)}
            data-testid="document-image"
            // Zoom by size, not by transform, so the stage scrolls to every part of a zoomed image.
            style={{ inlineSize: `${props.view.zoom * 100}%`, transform: `rotate(${props.view.rotation}deg)` }}
          />
        ) : (
          <p class="muted">{t('noImage')}</p>
        )}
      </div>
    </section>
  );
}

/** The selfie beside the document's portrait side, at the same size, for a face comparison by eye. */
export function FacesPanel({ verification }: { verification: CaseDetail }) {
  const t = useMessages(consoleMessages);
  const selfie = verification.selfieEvidence.find((item) => isImage(item.contentType));
  const portrait = verification.documentEvidence.find((item) => item.evidenceType === 'DocumentFront' && isImage(item.contentType));
  return (
    <section class="card" aria-labelledby="faces-title">
      <h2 id="faces-title">{t('faces')}</h2>
      <div class="faces">
        {[
          { item: selfie, label: t('selfie'), testId: 'selfie-image' },
          { item: portrait, label: t('documentPortrait'), testId: 'portrait-image' },
        ].map(({ item, label, testId }) => (
          <figure key={testId}>
            {item ? <img src={fileUrl(item)} alt={label} data-testid={testId} /> : <div class="placeholder">{t('noImage')}</div>}
            <figcaption>{label}</figcaption>
          </figure>
        ))}
      </div>
    </section>
  );
}

/** A strip of stills (made once on the server, then cached) above the video itself. */
export function LivenessPanel({ verification }: { verification: CaseDetail }) {
  const t = useMessages(consoleMessages);
  const video = verification.videoEvidence.find((item) => isVideo(item.contentType));
  const [framesFailed, setFramesFailed] = useState(false);
  if (!video) return null;
  return (
    <section class="card" aria-labelledby="liveness-title">
      <h2 id="liveness-title">{t('livenessFrames')}</h2>
      {framesFailed ? (
        <p class="muted" data-testid="frames-unavailable">
          {t('framesUnavailable')}
        </p>
      ) : (
        <img class="frame-strip" src={apiUrl(`/evidence/${video.id}/frames`)} alt={t('framesAlt')} data-testid="liveness-frames" onError={() => setFramesFailed(true)} />
      )}
      <video class="liveness-video" controls preload="metadata" src={fileUrl(video)} aria-label={t('livenessFrames')} />
    </section>
  );
}
