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

function sendOnce(captureToken: string, evidenceType: EvidenceType, file: Blob, fileName: string, onProgress: (fraction: number) => void) {
  return new Promise<{ status: number; body: string; retryAfter: number | null }>((resolve) => {
    const request = new XMLHttpRequest();
    request.open('POST', `${BASE}/evidence`);
    request.setRequestHeader('authorization', `Bearer ${captureToken}`);
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    // A connection that drops mid-body can hang until the TCP stack gives up: once the browser
    // knows it is offline (the event, or a look each second where the event does not come) the
    // attempt ends at once, and the loop waits to be online again.
    const offline = () => !navigator.onLine && request.abort();
    window.addEventListener('offline', offline);
    const watch = window.setInterval(offline, 1000);
    const settle = (answer: { status: number; body: string; retryAfter: number | null }) => {
      window.removeEventListener('offline', offline);
      window.clearInterval(watch);
      resolve(answer);
    };
    request.onload = () => settle({ status: request.status, body: request.responseText, retryAfter: Number(request.getResponseHeader('retry-after')) || null });
    request.onerror = () => settle({ status: 0, body: '', retryAfter: null });
    request.ontimeout = () => settle({ status: 0, body: '', retryAfter: null });
    request.onabort = () => settle({ status: 0, body: '', retryAfter: null });
    const form = new FormData();
    form.set('evidenceType', evidenceType);
    form.set('file', file, fileName);
    request.send(form);
  });
}

function waitForOnline(): Promise<void> {
  if (navigator.onLine) return Promise.resolve();
  return new Promise((resolve) => window.addEventListener('online', () => resolve(), { once: true }));
}

/**
 * One upload with progress; a lost connection or a busy server is retried with backoff (1 s,
 * 2 s, 4 s… at most 30 s, or the server's Retry-After), waiting for the browser to be online
 * again, so the user never starts over. The whole file is sent again: the API takes a piece whole.
 */
export async function uploadEvidence(
  captureToken: string,
  evidenceType: EvidenceType,
  file: Blob,
  fileName: string,
  events: { onProgress: (fraction: number) => void; onRetrying: () => void },
): Promise<UploadAnswer> {
  for (let attempt = 0; ; attempt += 1) {
    await waitForOnline();
    const answer = await sendOnce(captureToken, evidenceType, file, fileName, events.onProgress);
    if (answer.status === 201) return JSON.parse(answer.body) as UploadAnswer;
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
    // Progress first: the other order would overwrite "trying again" with a plain 0 %.
    events.onProgress(0);
    events.onRetrying();
    const delay = answer.retryAfter ? answer.retryAfter * 1000 : Math.min(30_000, 1000 * 2 ** attempt);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
