import { timingSafeEqual } from 'node:crypto';
import { assertRawBody, assertUsableSecret, computeSignature } from './compute-signature.js';
import {
  DEFAULT_TOLERANCE_SECONDS,
  FX_SIGNATURE_HEADER,
  FX_SIGNATURE_VERSION,
  FX_SIGNATURE_VERSION_HEADER,
  IDENTITY_SIGNATURE_HEADER,
  IDENTITY_SIGNATURE_PREFIX,
  TIMESTAMP_HEADER,
} from './header-names.js';
import { readHeader } from './header-source.js';
import type { HeaderSource } from './header-source.js';

export type VerificationFailureReason = 'missing_header' | 'malformed_header' | 'stale_timestamp' | 'signature_mismatch';

export type VerificationResult =
  | { ok: true; timestamp: number }
  | { ok: false; reason: VerificationFailureReason; message: string };

export interface VerifyOptions {
  secret: string;
  headers: HeaderSource;
  /** The body exactly as received: a Buffer of the bytes read off the socket, or their UTF-8 text. */
  rawBody: string | Uint8Array;
  /** Allowed distance between the timestamp and now, in either direction. Default 300. */
  toleranceSeconds?: number;
  /** Millisecond clock; default `Date.now`. */
  now?: () => number;
}

export class WebhookVerificationError extends Error {
  readonly reason: VerificationFailureReason;

  constructor(reason: VerificationFailureReason, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}

type Failure = Extract<VerificationResult, { ok: false }>;

interface SignatureScheme {
  signatureHeader: string;
  /** The hex digest from the header value, or undefined when the value is malformed. */
  extractHexDigest(headerValue: string): string | undefined;
  /** Checks of unsigned headers that tell us the sender used a scheme we cannot verify. */
  checkUnsignedHeaders(headers: HeaderSource): Failure | undefined;
}

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;
const DECIMAL_DIGITS = /^[0-9]+$/;

const identityScheme: SignatureScheme = {
  signatureHeader: IDENTITY_SIGNATURE_HEADER,
  extractHexDigest(headerValue) {
    if (!headerValue.startsWith(IDENTITY_SIGNATURE_PREFIX)) return undefined;
    const hex = headerValue.slice(IDENTITY_SIGNATURE_PREFIX.length);
    return HEX_SHA256.test(hex) ? hex : undefined;
  },
  checkUnsignedHeaders: () => undefined,
};

const fxScheme: SignatureScheme = {
  signatureHeader: FX_SIGNATURE_HEADER,
  extractHexDigest: (headerValue) => (HEX_SHA256.test(headerValue) ? headerValue : undefined),
  checkUnsignedHeaders(headers) {
    // The version header is not signed, so its absence proves nothing and is tolerated; but a
    // sender that announces another version signs differently, and saying so beats a bare mismatch.
    const version = readHeader(headers, FX_SIGNATURE_VERSION_HEADER);
    if (version === undefined || version === FX_SIGNATURE_VERSION) return undefined;
    return failure(
      'malformed_header',
      `${FX_SIGNATURE_VERSION_HEADER} is ${JSON.stringify(version)}; only version ${FX_SIGNATURE_VERSION} is supported`,
    );
  },
};

/** Verifies an identity-service delivery (`X-Service-Signature: sha256=<hex>`). */
export function verifyIdentityWebhook(options: VerifyOptions): VerificationResult {
  return verifyWithScheme(identityScheme, options);
}

/** Verifies an FX `rate_alert` delivery (`X-Service-Signature-256: <hex>`). */
export function verifyFxWebhook(options: VerifyOptions): VerificationResult {
  return verifyWithScheme(fxScheme, options);
}

/** Like `verifyIdentityWebhook`, but throws `WebhookVerificationError` on failure. */
export function assertValidIdentityWebhook(options: VerifyOptions): { timestamp: number } {
  return unwrap(verifyIdentityWebhook(options));
}

/** Like `verifyFxWebhook`, but throws `WebhookVerificationError` on failure. */
export function assertValidFxWebhook(options: VerifyOptions): { timestamp: number } {
  return unwrap(verifyFxWebhook(options));
}

function verifyWithScheme(scheme: SignatureScheme, options: VerifyOptions): VerificationResult {
  // Misconfiguration is a programming error, not a bad request: throw rather than report a failure
  // that would make every delivery look forged.
  assertUsableSecret(options.secret);
  assertRawBody(options.rawBody);
  const toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!Number.isFinite(toleranceSeconds) || toleranceSeconds < 0) {
    throw new RangeError(`toleranceSeconds must be a non-negative finite number, got ${toleranceSeconds}`);
  }

  const signatureValue = readHeader(options.headers, scheme.signatureHeader);
  if (signatureValue === undefined) return failure('missing_header', `${scheme.signatureHeader} header is missing`);
  const timestampValue = readHeader(options.headers, TIMESTAMP_HEADER);
  if (timestampValue === undefined) return failure('missing_header', `${TIMESTAMP_HEADER} header is missing`);

  const unsignedHeaderFailure = scheme.checkUnsignedHeaders(options.headers);
  if (unsignedHeaderFailure !== undefined) return unsignedHeaderFailure;

  const timestamp = DECIMAL_DIGITS.test(timestampValue) ? Number(timestampValue) : Number.NaN;
  if (!Number.isSafeInteger(timestamp)) {
    return failure('malformed_header', `${TIMESTAMP_HEADER} must be Unix seconds as decimal digits`);
  }
  const receivedHex = scheme.extractHexDigest(signatureValue);
  if (receivedHex === undefined) {
    const expectedShape = scheme === identityScheme ? `${IDENTITY_SIGNATURE_PREFIX}<64 hex>` : '64 hex characters';
    return failure('malformed_header', `${scheme.signatureHeader} must be ${expectedShape}`);
  }

  const nowSeconds = Math.floor((options.now ?? Date.now)() / 1000);
  const skewSeconds = timestamp - nowSeconds;
  if (Math.abs(skewSeconds) > toleranceSeconds) {
    const direction = skewSeconds < 0 ? 'in the past' : 'in the future';
    return failure(
      'stale_timestamp',
      `${TIMESTAMP_HEADER} is ${Math.abs(skewSeconds)} s ${direction}; at most ${toleranceSeconds} s is allowed`,
    );
  }

  // Signed over the header text itself, not the re-formatted number, so the check covers exactly
  // what the sender put on the wire.
  const expectedHex = computeSignature(options.secret, timestampValue, options.rawBody);
  if (!hexDigestsEqual(expectedHex, receivedHex.toLowerCase())) {
    return failure(
      'signature_mismatch',
      `${scheme.signatureHeader} does not match the body; sign and verify the raw bytes, never re-serialised JSON`,
    );
  }
  return { ok: true, timestamp };
}

function hexDigestsEqual(expectedHex: string, receivedHex: string): boolean {
  const expected = Buffer.from(expectedHex, 'utf8');
  const received = Buffer.from(receivedHex, 'utf8');
  // timingSafeEqual throws on different lengths; both are validated to 64 chars, but keep the guard
  // so a future scheme change cannot turn a mismatch into an exception.
  return expected.length === received.length && timingSafeEqual(expected, received);
}

function failure(reason: VerificationFailureReason, message: string): Failure {
  return { ok: false, reason, message };
}

function unwrap(result: VerificationResult): { timestamp: number } {
  if (!result.ok) throw new WebhookVerificationError(result.reason, result.message);
  return { timestamp: result.timestamp };
}
