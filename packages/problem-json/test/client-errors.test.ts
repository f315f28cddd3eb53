import { describe, expect, it } from 'vitest';
import { IncompleteBodyError, problemForClientError, rawProblemResponse, RequestTimeoutError, ShuttingDownError } from '../src/index.js';

const errorWithCode = (code: string) => Object.assign(new Error(code), { code });

describe('errors Node raises before any request exists', () => {
  it('map to a status and a code: timeout 408, header overflow 431, URI overflow 414, anything else 400', () => {
    expect(problemForClientError(errorWithCode('ERR_HTTP_REQUEST_TIMEOUT'))).toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT' });
    expect(problemForClientError(errorWithCode('HPE_HEADER_OVERFLOW'))).toMatchObject({ status: 431, code: 'HEADERS_TOO_LARGE' });
    expect(problemForClientError(errorWithCode('HPE_URI_TOO_LONG'))).toMatchObject({ status: 414, code: 'URI_TOO_LONG' });
    expect(problemForClientError(errorWithCode('HPE_INVALID_METHOD'))).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
  });

  it('are written as a whole HTTP/1.1 response with a problem+json body whose length is exact, closing the connection', () => {
    const response = rawProblemResponse(problemForClientError(errorWithCode('HPE_HEADER_OVERFLOW')), 'corr-1');
    const [head, body] = response.split('\r\n\r\n') as [string, string];
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(head).toContain('Content-Type: application/problem+json; charset=utf-8');
    expect(head).toContain('Connection: close');
    expect(head).toContain(`Content-Length: ${Buffer.byteLength(body)}`);
    expect(JSON.parse(body)).toEqual({
      type: '/problems/headers-too-large',
      title: 'Request Header Fields Too Large',
      status: 431,
      detail: expect.any(String),
      code: 'HEADERS_TOO_LARGE',
      correlationId: 'corr-1',
    });
  });
});

describe('edge problems', () => {
  it('close the connection after answering, and a shutdown invites an immediate retry', () => {
    expect(new RequestTimeoutError('x')).toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT', headers: { Connection: 'close' } });
    expect(new IncompleteBodyError('x')).toMatchObject({ status: 400, code: 'INCOMPLETE_BODY', headers: { Connection: 'close' } });
    expect(new ShuttingDownError()).toMatchObject({ status: 503, code: 'SHUTTING_DOWN', headers: { Connection: 'close', 'Retry-After': '1' } });
  });
});
