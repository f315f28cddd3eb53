import type { IncomingMessage } from 'node:http';
import { IncompleteBodyError } from '@svc/problem-json';

/** The boundary parameter of a multipart Content-Type (quoted or not), or undefined. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^;\s"]{1,70}))/i.exec(contentType ?? '');
  return match?.[1] ?? match?.[2];
}

/**
 * Watches a multipart body as it arrives and aborts with the problem to answer when it cannot
 * be whole: it ended without its closing delimiter (the parser would leave the file stream
 * open for good, or fail with a 500), the client went away, or the server gave up on it
 * (`serverSignal`: silence, shutdown). Attach after the parser is piped: a 'data' listener
 * added earlier would start the flow before anyone reads it.
 */
export function watchMultipartBody(raw: IncomingMessage, boundary: string, serverSignal: AbortSignal): AbortSignal {
  const controller = new AbortController();
  const closing = Buffer.from(`--${boundary}--`);
  let tail: Buffer = Buffer.alloc(0);
  let closed = false;

  const abort = (reason: unknown) => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  const onData = (chunk: Buffer) => {
    if (closed) return;
    // The delimiter may straddle two chunks: look in the seam, then in the chunk itself.
    const seam = Buffer.concat([tail, chunk.subarray(0, closing.length - 1)]);
    closed = seam.includes(closing) || chunk.includes(closing);
    tail = Buffer.from((chunk.length >= closing.length - 1 ? chunk : Buffer.concat([tail, chunk])).subarray(-(closing.length - 1)));
  };
  const onEnd = () => {
    if (!closed) abort(new IncompleteBodyError('The multipart body ended before its closing boundary: the upload was cut short. Send it again.'));
  };
  const onClose = () => {
    if (!raw.complete) abort(new IncompleteBodyError('The connection closed before the body was complete.'));
  };
  const onServerAbort = () => abort(serverSignal.reason);

  raw.on('data', onData);
  raw.once('end', onEnd);
  raw.once('close', onClose);
  if (serverSignal.aborted) onServerAbort();
  else serverSignal.addEventListener('abort', onServerAbort, { once: true });
  controller.signal.addEventListener('abort', () => raw.off('data', onData), { once: true });
  return controller.signal;
}

/** Rejects with the signal's reason once it aborts, so a wait on the parser can be raced against it. */
export function whenAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason as Error);
    else signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });
}
