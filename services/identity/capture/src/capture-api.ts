import { DetailedError, Upload } from 'tus-js-client';
import type { CapturePreview, CaptureStatus, DocumentType, EvidenceType, LivenessChallenge, UploadedEvidence } from '@svc/identity-client/types';

/**
 * The capture API as the page calls it: same origin, the session token (from the URL fragment)
 * only for the preview and the one exchange, the capture token for everything after. The capture
 * token is kept in sessionStorage so a reload of this tab continues; another tab cannot use it.
 */
const BASE = '/api/capture/v1';
const STORAGE_KEY = 'capture.session';

export type { CaptureStatus, DocumentType, EvidenceType, LivenessChallenge };
export type Preview = CapturePreview;
/** The stored evidence and the server's quick look (null: no advice); see docs/capture-page.md. */
export type UploadAnswer = UploadedEvidence;

/** A refused call: the problem's code decides what the page shows. */
export class CaptureError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    detail: string,
  ) {
    super(detail);
    this.name = 'CaptureError';
  }
}

async function problemOf(response: Response): Promise<CaptureError> {
  const body = (await response.json().catch(() => ({}))) as { code?: string; detail?: string };
  return new CaptureError(response.status, body.code, body.detail ?? `HTTP ${response.status}`);
}

async function call<T>(method: 'GET' | 'POST', path: string, token: string, body?: unknown): Promise<T> {
  const response = await fetch(`${BASE}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    cache: 'no-store',
    credentials: 'omit',
  });
  if (!response.ok) throw await problemOf(response);
  return (response.status === 204 ? undefined : await response.json()) as T;
}

/** The capture token this tab got for this link, if any. */
export function storedCaptureToken(sessionToken: string): string | null {
  try {
    const stored = JSON.parse(window.sessionStorage.getItem(STORAGE_KEY) ?? 'null') as { sessionToken: string; captureToken: string } | null;
    return stored?.sessionToken === sessionToken ? stored.captureToken : null;
  } catch {
    return null;
  }
}

export function forgetCaptureToken(): void {
  try {
    window.sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Nothing was kept.
  }
}

export const previewSession = (sessionToken: string) => call<Preview>('GET', '/session', sessionToken);

export async function startSession(sessionToken: string): Promise<string> {
  const { captureToken } = await call<{ captureToken: string }>('POST', '/session', sessionToken);
  try {
    window.sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ sessionToken, captureToken }));
  } catch {
    // A reload will then find the link used; the rest of this visit works.
  }
  return captureToken;
}

export const recordConsent = (captureToken: string, language: string) => call<undefined>('POST', '/consent', captureToken, { language });
export const captureStatus = (captureToken: string) => call<CaptureStatus>('GET', '/status', captureToken);
export const submitCapture = (captureToken: string) => call<{ caseId: string; status: string }>('POST', '/submit', captureToken);

/** Failures worth sending again: no connection, a timeout, the server busy or restarting. */
function isTransient(status: number): boolean {
  return status === 0 || status === 408 || status === 429 || status === 502 || status === 503 || status === 504;
}

function waitForOnline(): Promise<void> {
  if (navigator.onLine) return Promise.resolve();
  return new Promise((resolve) => window.addEventListener('online', () => resolve(), { once: true }));
}

/** Bytes per PATCH: small enough that a slow uplink (25 KB/s) acknowledges one every ~10 s, so a drop loses little. */
export const UPLOAD_CHUNK_BYTES = 256 * 1024;

type Attempt = { ok: true; body: string } | { ok: false; status: number; body: string; retryAfter: number | null };

/** One run of the tus upload until it finishes or fails; a later run of the same Upload resumes from the server's offset. */
function runOnce(upload: Upload): Promise<Attempt> {
  return new Promise((resolve) => {
    // A connection that drops mid-chunk can hang until the TCP stack gives up: once the browser
    // knows it is offline (the event, or a look each second where the event does not come) the
    // chunk is abandoned at once, and the caller waits to be online again.
    const offline = () => {
      if (navigator.onLine) return;
      void upload.abort();
      settle({ ok: false, status: 0, body: '', retryAfter: null });
    };
    window.addEventListener('offline', offline);
    const watch = window.setInterval(offline, 1000);
    let settled = false;
    const settle = (attempt: Attempt) => {
      if (settled) return;
      settled = true;
      window.removeEventListener('offline', offline);
      window.clearInterval(watch);
      resolve(attempt);
    };
    upload.options.onSuccess = (payload) => settle({ ok: true, body: payload.lastResponse.getBody() });
    upload.options.onError = (error) => {
      const response = error instanceof DetailedError ? error.originalResponse : null;
      settle({ ok: false, status: response?.getStatus() ?? 0, body: response?.getBody() ?? '', retryAfter: Number(response?.getHeader('retry-after')) || null });
    };
    upload.start();
  });
}

/**
 * One upload over the tus resumable protocol (docs/capture-page.md), in 256 KB chunks, each
 * acknowledged; the progress is the bytes the server holds. A lost connection or a busy server
 * is retried with backoff (1 s, 2 s, 4 s… at most 30 s, or the server's Retry-After), waiting for
 * the browser to be online again, and the upload resumes from the server's offset, not from 0.
 */
export async function uploadEvidence(
  captureToken: string,
  evidenceType: EvidenceType,
  file: Blob,
  fileName: string,
  events: { onProgress: (fraction: number) => void; onRetrying: () => void },
): Promise<UploadAnswer> {
  const upload = new Upload(file, {
    endpoint: `${BASE}/uploads`,
    chunkSize: UPLOAD_CHUNK_BYTES,
    headers: { authorization: `Bearer ${captureToken}` },
    metadata: { evidenceType, filename: fileName },
    // Retries are this loop's (it waits to be online); nothing about the upload is kept beyond the tab.
    retryDelays: [],
    storeFingerprintForResuming: false,
    removeFingerprintOnSuccess: true,
    onChunkComplete: (_chunk, accepted, total) => events.onProgress(total > 0 ? accepted / total : 0),
  });
  for (let attempt = 0; ; attempt += 1) {
    await waitForOnline();
    const answer = await runOnce(upload);
    // An empty answer: the last chunk's reply was lost and the server said the upload is whole; it was taken, without advice.
    if (answer.ok) return (answer.body ? JSON.parse(answer.body) : { quality: null }) as UploadAnswer;
    if (!isTransient(answer.status) || attempt >= 12) {
      const body = (() => {
        try {
          return JSON.parse(answer.body) as { code?: string; detail?: string };
        } catch {
          return {};
        }
      })();
      throw new CaptureError(answer.status, body.code, body.detail ?? `HTTP ${answer.status}`);
    }
    events.onRetrying();
    const delay = answer.retryAfter ? answer.retryAfter * 1000 : Math.min(30_000, 1000 * 2 ** attempt);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
