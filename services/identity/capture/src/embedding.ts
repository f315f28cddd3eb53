import { CAPTURE_MESSAGE_SOURCE, EMBEDDING_ORIGIN_PARAMETER, type CaptureEvent, type CaptureMessage } from '@svc/capture-embed';

/**
 * The partner's page this one runs inside (opened by @svc/capture-embed), or null when it is a
 * page of its own. The embedding page names its origin in the query; it is used only as the
 * target of postMessage, so the browser delivers nothing unless the parent really is that
 * origin, and the parent could only frame this page if its tenant lists it (frame-ancestors).
 */
function embeddingOrigin(): string | null {
  if (window.parent === window) return null;
  const named = new URLSearchParams(window.location.search).get(EMBEDDING_ORIGIN_PARAMETER);
  if (!named) return null;
  try {
    const url = new URL(named);
    return url.origin === named && (url.protocol === 'https:' || url.protocol === 'http:') ? named : null;
  } catch {
    return null;
  }
}

const parentOrigin = embeddingOrigin();

/** Inside a partner's page: it shows what comes next, so the page does not navigate away (returnUrl). */
export const embedded = parentOrigin !== null;

/** Tells the embedding page what happened; nothing when the page is not embedded. */
export function tellEmbedder(event: CaptureEvent): void {
  if (parentOrigin === null) return;
  const message: CaptureMessage = { ...event, source: CAPTURE_MESSAGE_SOURCE };
  window.parent.postMessage(message, parentOrigin);
}
