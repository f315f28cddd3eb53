/**
 * The hosted capture page inside a partner's own page: an iframe with the camera allowed, and the
 * page's progress relayed as events. The capture page posts only to the origin this page names in
 * the capture URL (and only when that origin is one the tenant listed, or the browser would not
 * have framed it); this side accepts only messages from the capture URL's origin and from its own
 * iframe, so no other frame or window can fake an event.
 */

/** The capture page's steps, in order (a national ID has both sides; a passport only its front). */
export type CaptureStepName = 'consent' | 'DocumentFront' | 'DocumentBack' | 'Selfie' | 'LivenessVideo' | 'review';

export type CaptureEvent =
  /** The page has loaded and checked its link; the user sees its first screen. */
  | { type: 'ready' }
  /** The user reached a step. */
  | { type: 'step'; name: CaptureStepName }
  /** The evidence was submitted: the case goes to its checks (the decision arrives by webhook). */
  | { type: 'submitted'; caseId: string }
  /** The user declined, or closed the modal. */
  | { type: 'cancelled' }
  /** The link cannot be used (SESSION_ALREADY_USED, SESSION_EXPIRED, CASE_CLOSED, UNAUTHENTICATED) or a call failed (the problem's code, else NETWORK_ERROR). */
  | { type: 'error'; code: string };

/** Marks the capture page's messages among any others the partner's page receives. */
export const CAPTURE_MESSAGE_SOURCE = 'svc-capture';
/** On the wire: the event and its source. */
export type CaptureMessage = CaptureEvent & { source: typeof CAPTURE_MESSAGE_SOURCE };
/** The capture URL's query parameter naming the page it is embedded in. */
export const EMBEDDING_ORIGIN_PARAMETER = 'origin';

export interface OpenCaptureOptions {
  /** The case's captureUrl, as POST /verifications answered it (hand it to the browser, not the token alone). */
  url: string;
  /** Shown inline, filling this element; omitted: a full-screen modal with a close button. */
  container?: HTMLElement;
  onEvent?: (event: CaptureEvent) => void;
  /** The iframe's accessible name (default "Identity verification"); the modal's close button's label is `closeLabel`. */
  title?: string;
  closeLabel?: string;
}

export interface CaptureHandle {
  readonly frame: HTMLIFrameElement;
  /** Removes the iframe (and the modal) and stops listening; safe to call twice. */
  close(): void;
}

const STEPS: readonly string[] = ['consent', 'DocumentFront', 'DocumentBack', 'Selfie', 'LivenessVideo', 'review'];

/** The event in a message, or null for anything else (another library's messages, a malformed or forged shape). */
function eventOf(data: unknown): CaptureEvent | null {
  if (typeof data !== 'object' || data === null) return null;
  const message = data as Record<string, unknown>;
  if (message.source !== CAPTURE_MESSAGE_SOURCE) return null;
  const text = (value: unknown) => typeof value === 'string' && value.length > 0 && value.length <= 100;
  switch (message.type) {
    case 'ready':
    case 'cancelled':
      return { type: message.type };
    case 'step':
      return STEPS.includes(message.name as string) ? { type: 'step', name: message.name as CaptureStepName } : null;
    case 'submitted':
      return text(message.caseId) ? { type: 'submitted', caseId: message.caseId as string } : null;
    case 'error':
      return text(message.code) ? { type: 'error', code: message.code as string } : null;
    default:
      return null;
  }
}

function styled<T extends HTMLElement>(element: T, css: string): T {
  element.style.cssText = css;
  return element;
}

export function openCapture(options: OpenCaptureOptions): CaptureHandle {
  const target = new URL(options.url, window.location.href);
  if (target.protocol !== 'https:' && target.protocol !== 'http:') throw new TypeError('openCapture: url must be the https captureUrl of a case');
  const expectedOrigin = target.origin;
  // The capture page posts its events to this origin only; the fragment (the session token) stays as it is.
  target.searchParams.set(EMBEDDING_ORIGIN_PARAMETER, window.location.origin);

  const frame = styled(document.createElement('iframe'), 'border:0;display:block;width:100%;height:100%;background:#fff');
  frame.allow = 'camera';
  frame.title = options.title ?? 'Identity verification';
  // The partner's own address (and whatever its query holds) is none of the capture page's business.
  frame.referrerPolicy = 'no-referrer';
  frame.src = target.href;

  let root: HTMLElement = frame;
  if (options.container) {
    if (!options.container.style.minHeight) frame.style.minHeight = '600px';
    options.container.appendChild(frame);
  } else {
    root = styled(document.createElement('div'), 'position:fixed;inset:0;z-index:2147483647;background:rgba(0,0,0,.6);padding:min(4vh,32px) min(4vw,32px);box-sizing:border-box');
    root.setAttribute('role', 'dialog');
    root.setAttribute('aria-modal', 'true');
    root.setAttribute('aria-label', frame.title);
    const dismiss = styled(document.createElement('button'), 'position:absolute;top:4px;inset-inline-end:4px;width:40px;height:40px;border:0;border-radius:50%;background:#fff;font:24px/1 sans-serif;cursor:pointer');
    dismiss.type = 'button';
    dismiss.textContent = '×';
    dismiss.setAttribute('aria-label', options.closeLabel ?? 'Close');
    dismiss.addEventListener('click', () => {
      close();
      options.onEvent?.({ type: 'cancelled' });
    });
    root.append(frame, dismiss);
    document.body.appendChild(root);
  }

  const onMessage = (message: MessageEvent) => {
    if (message.origin !== expectedOrigin || message.source !== frame.contentWindow) return;
    const event = eventOf(message.data);
    if (event) options.onEvent?.(event);
  };
  window.addEventListener('message', onMessage);

  let open = true;
  function close() {
    if (!open) return;
    open = false;
    window.removeEventListener('message', onMessage);
    root.remove();
  }
  return { frame, close };
}
