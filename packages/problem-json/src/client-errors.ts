import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { PROBLEM_CONTENT_TYPE, toProblemDocument } from './problem-document.js';
import { ProblemError, RequestTimeoutError } from './problem-error.js';

/**
 * What Node's HTTP parser rejected before any request existed (Fastify's `clientError`): a
 * header block too large, a malformed request line or chunk, headers that never finished.
 */
export function problemForClientError(error: NodeJS.ErrnoException): ProblemError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new RequestTimeoutError('The request was not received in time.');
    case 'HPE_HEADER_OVERFLOW':
      return new ProblemError({ status: 431, code: 'HEADERS_TOO_LARGE', title: 'Request Header Fields Too Large', detail: 'The request line and headers exceed the size this server accepts.' });
    case 'HPE_URI_TOO_LONG':
      return new ProblemError({ status: 414, code: 'URI_TOO_LONG', title: 'URI Too Long', detail: 'The request URI is longer than this server accepts.' });
    default:
      return new ProblemError({ status: 400, code: 'BAD_REQUEST', title: 'Bad Request', detail: 'The request is not valid HTTP/1.1.' });
  }
}

/** A whole HTTP/1.1 response carrying the problem; the connection closes after it. */
export function rawProblemResponse(problem: ProblemError, correlationId: string = randomUUID()): string {
  const body = JSON.stringify({ ...toProblemDocument(problem), correlationId });
  const headers = { ...problem.headers, 'Content-Type': `${PROBLEM_CONTENT_TYPE}; charset=utf-8`, 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? 'Error'}\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
}

/**
 * Fastify's `clientErrorHandler`, answering problem+json instead of its bare JSON. A reset
 * connection has nobody to answer; a request already answering keeps its own response.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket, log?: { debug(object: object, message: string): void }): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const problem = problemForClientError(error);
  log?.debug({ err: error, problem: { status: problem.status, code: problem.code } }, 'client error before routing');
  const responding = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (socket.writable && !responding?.headersSent) socket.end(rawProblemResponse(problem));
  socket.destroySoon();
}
