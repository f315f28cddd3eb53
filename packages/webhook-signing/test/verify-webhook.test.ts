import { describe, expect, it } from 'vitest';
import {
  WebhookVerificationError,
  assertValidFxWebhook,
  assertValidIdentityWebhook,
  buildFxWebhookHeaders,
  buildIdentityWebhookHeaders,
  computeSignature,
  generateSigningSecret,
  verifyFxWebhook,
  verifyIdentityWebhook,
} from '../src/index.js';
import type { VerifyOptions } from '../src/index.js';

const SECRET = 'whsec_test_5pV9c2kQ8mZrT1xYwA3nB7dF0gH4jL6s';
const SIGNED_AT = 1700000000;
const BODY = '{"event":"rate_alert","currency":"USD","currentRate":13150.5,"label":"دولار"}';
const clockAt = (unixSeconds: number) => () => unixSeconds * 1000;
const atSigningTime = clockAt(SIGNED_AT);

type HeaderRecord = Record<string, string>;

// Lower-case keys, as node:http delivers them.
function lowerCaseKeys(headers: HeaderRecord): HeaderRecord {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

function identityHeaders(): HeaderRecord {
  const sent = buildIdentityWebhookHeaders({
    secret: SECRET,
    rawBody: BODY,
    timestamp: SIGNED_AT,
    eventType: 'verification.approved',
  });
  return lowerCaseKeys(sent);
}

function fxHeaders(): HeaderRecord {
  return lowerCaseKeys(buildFxWebhookHeaders({ secret: SECRET, rawBody: BODY, timestamp: SIGNED_AT }));
}

/** Replaces the hex digest in a signature header value, keeping any `sha256=` prefix. */
function replaceDigest(signatureValue: string | undefined, replacement: (hex: string) => string): string {
  return (signatureValue ?? '').replace(/[0-9a-f]{64}$/, replacement);
}

const schemes = [
  {
    name: 'identity',
    verify: verifyIdentityWebhook,
    signatureHeader: 'x-service-signature',
    displayName: 'X-Service-Signature',
    headers: identityHeaders,
  },
  {
    name: 'fx',
    verify: verifyFxWebhook,
    signatureHeader: 'x-service-signature-256',
    displayName: 'X-Service-Signature-256',
    headers: fxHeaders,
  },
] as const;

describe.each(schemes)('$name scheme', ({ name, verify, signatureHeader, displayName, headers }) => {
  const verifyWith = (overrides: Partial<VerifyOptions>) =>
    verify({ secret: SECRET, headers: headers(), rawBody: BODY, now: atSigningTime, ...overrides });
  const withHeader = (header: string, value: string | string[]) => ({ ...headers(), [header]: value });
  const withDigest = (replacement: (hex: string) => string) =>
    withHeader(signatureHeader, replaceDigest(headers()[signatureHeader], replacement));

  it('accepts its own signature and returns the timestamp', () => {
    expect(verifyWith({})).toStrictEqual({ ok: true, timestamp: SIGNED_AT });
  });

  it('accepts the body as a Buffer of the same UTF-8 bytes', () => {
    expect(verifyWith({ rawBody: Buffer.from(BODY, 'utf8') })).toStrictEqual({ ok: true, timestamp: SIGNED_AT });
  });

  it('round-trips with a freshly generated secret and the real clock', () => {
    const secret = generateSigningSecret();
    const sent =
      name === 'identity'
        ? buildIdentityWebhookHeaders({ secret, rawBody: BODY, eventType: 'verification.expired' })
        : buildFxWebhookHeaders({ secret, rawBody: BODY });
    const sentTimestamp = Number(sent['X-Service-Timestamp']);
    expect(Math.abs(sentTimestamp - Date.now() / 1000)).toBeLessThan(5);
    expect(verify({ secret, headers: sent, rawBody: BODY })).toStrictEqual({ ok: true, timestamp: sentTimestamp });
  });

  it('reports a missing signature header', () => {
    const { [signatureHeader]: _removed, ...rest } = headers();
    expect(verifyWith({ headers: rest })).toStrictEqual({
      ok: false,
      reason: 'missing_header',
      message: `${displayName} header is missing`,
    });
  });

  it('reports a missing timestamp header', () => {
    const { 'x-service-timestamp': _removed, ...rest } = headers();
    expect(verifyWith({ headers: rest })).toStrictEqual({
      ok: false,
      reason: 'missing_header',
      message: 'X-Service-Timestamp header is missing',
    });
  });

  it('treats an empty signature header as missing', () => {
    expect(verifyWith({ headers: withHeader(signatureHeader, '') })).toMatchObject({ reason: 'missing_header' });
  });

  it.each(['1700000000.0', '1.7e9', '-1700000000', '+1700000000', '1700000000 ', '0x6553f100', '99999999999999999999'])(
    'reports the timestamp %j as malformed',
    (timestamp) => {
      expect(verifyWith({ headers: withHeader('x-service-timestamp', timestamp) })).toStrictEqual({
        ok: false,
        reason: 'malformed_header',
        message: 'X-Service-Timestamp must be Unix seconds as decimal digits',
      });
    },
  );

  it('reports a stale timestamp 301 s in the past', () => {
    expect(verifyWith({ now: clockAt(SIGNED_AT + 301) })).toStrictEqual({
      ok: false,
      reason: 'stale_timestamp',
      message: 'X-Service-Timestamp is 301 s in the past; at most 300 s is allowed',
    });
  });

  it('reports a stale timestamp 301 s in the future', () => {
    expect(verifyWith({ now: clockAt(SIGNED_AT - 301) })).toStrictEqual({
      ok: false,
      reason: 'stale_timestamp',
      message: 'X-Service-Timestamp is 301 s in the future; at most 300 s is allowed',
    });
  });

  it('accepts exactly 300 s in either direction, including the last millisecond of that second', () => {
    expect(verifyWith({ now: clockAt(SIGNED_AT + 300) })).toMatchObject({ ok: true });
    expect(verifyWith({ now: () => (SIGNED_AT + 300) * 1000 + 999 })).toMatchObject({ ok: true });
    expect(verifyWith({ now: clockAt(SIGNED_AT - 300) })).toMatchObject({ ok: true });
  });

  it('honours a custom tolerance', () => {
    expect(verifyWith({ now: clockAt(SIGNED_AT + 11), toleranceSeconds: 10 })).toMatchObject({
      reason: 'stale_timestamp',
    });
    expect(verifyWith({ now: clockAt(SIGNED_AT + 10), toleranceSeconds: 10 })).toMatchObject({ ok: true });
  });

  it('checks staleness before the signature, so an old replay is reported as stale', () => {
    expect(verifyWith({ now: clockAt(SIGNED_AT + 3600), secret: 'whsec_wrong' })).toMatchObject({
      reason: 'stale_timestamp',
    });
  });

  it('reports a tampered body as a signature mismatch', () => {
    expect(verifyWith({ rawBody: BODY.replace('13150.5', '13150.6') })).toStrictEqual({
      ok: false,
      reason: 'signature_mismatch',
      message: `${displayName} does not match the body; sign and verify the raw bytes, never re-serialised JSON`,
    });
  });

  it('reports a re-serialised JSON body as a signature mismatch', () => {
    const sentWithSpaces = '{ "a": 1 }';
    const sent = withDigest(() => computeSignature(SECRET, SIGNED_AT, sentWithSpaces));
    expect(verifyWith({ headers: sent, rawBody: sentWithSpaces })).toMatchObject({ ok: true });
    const reserialised = JSON.stringify(JSON.parse(sentWithSpaces));
    expect(verifyWith({ headers: sent, rawBody: reserialised })).toMatchObject({ reason: 'signature_mismatch' });
  });

  it('reports a wrong secret as a signature mismatch', () => {
    expect(verifyWith({ secret: generateSigningSecret() })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it('reports a signature made for a different timestamp as a mismatch', () => {
    const shiftedTimestamp = withHeader('x-service-timestamp', String(SIGNED_AT + 1));
    expect(verifyWith({ headers: shiftedTimestamp })).toMatchObject({ reason: 'signature_mismatch' });
  });

  it('accepts upper-case hex', () => {
    const upperCased = withDigest((hex) => hex.toUpperCase());
    expect(upperCased[signatureHeader]).toMatch(/[A-F]/);
    expect(verifyWith({ headers: upperCased })).toStrictEqual({ ok: true, timestamp: SIGNED_AT });
  });

  it('looks headers up in a fetch Headers object', () => {
    expect(verifyWith({ headers: new Headers(headers()) })).toStrictEqual({ ok: true, timestamp: SIGNED_AT });
  });

  it('looks headers up case-insensitively in a record with mixed-case keys', () => {
    const upperCaseKeys = Object.fromEntries(Object.entries(headers()).map(([key, value]) => [key.toUpperCase(), value]));
    expect(verifyWith({ headers: upperCaseKeys })).toStrictEqual({ ok: true, timestamp: SIGNED_AT });
  });

  it('uses the first value of a repeated header', () => {
    const signature = headers()[signatureHeader] ?? '';
    expect(verifyWith({ headers: withHeader(signatureHeader, [signature, 'garbage']) })).toMatchObject({ ok: true });
    expect(verifyWith({ headers: withHeader(signatureHeader, ['garbage', signature]) })).toMatchObject({
      reason: 'malformed_header',
    });
    expect(verifyWith({ headers: withHeader(signatureHeader, []) })).toMatchObject({ reason: 'missing_header' });
  });

  it('verifies over the timestamp header text exactly as sent', () => {
    const paddedTimestamp = `0${SIGNED_AT}`;
    const sent = {
      ...withDigest(() => computeSignature(SECRET, paddedTimestamp, BODY)),
      'x-service-timestamp': paddedTimestamp,
    };
    expect(verifyWith({ headers: sent })).toStrictEqual({ ok: true, timestamp: SIGNED_AT });
  });

  it('throws on a misconfigured secret, tolerance or body instead of reporting a forged delivery', () => {
    expect(() => verifyWith({ secret: '' })).toThrow(TypeError);
    expect(() => verifyWith({ toleranceSeconds: -1 })).toThrow(RangeError);
    expect(() => verifyWith({ toleranceSeconds: Number.NaN })).toThrow(RangeError);
    const parsedBody: unknown = JSON.parse(BODY);
    expect(() => verifyWith({ rawBody: parsedBody as string })).toThrow(/verify before any JSON body parser runs/);
  });
});

describe('signature header format', () => {
  const hex = computeSignature(SECRET, SIGNED_AT, BODY);
  const verifyOnce = (verify: (options: VerifyOptions) => unknown, headers: HeaderRecord) =>
    verify({ secret: SECRET, headers, rawBody: BODY, now: atSigningTime });

  it.each([
    ['bare hex without the prefix', hex],
    ['an upper-case prefix', `SHA256=${hex}`],
    ['a short digest', `sha256=${hex.slice(1)}`],
    ['a long digest', `sha256=${hex}0`],
    ['non-hex characters', `sha256=${hex.slice(1)}g`],
    ['a sha1 prefix', `sha1=${hex}`],
  ])('identity rejects %s as malformed', (_description, signature) => {
    expect(verifyOnce(verifyIdentityWebhook, { ...identityHeaders(), 'x-service-signature': signature })).toStrictEqual({
      ok: false,
      reason: 'malformed_header',
      message: 'X-Service-Signature must be sha256=<64 hex>',
    });
  });

  it.each([
    ['the identity sha256= prefix', `sha256=${hex}`],
    ['a short digest', hex.slice(2)],
    ['surrounding garbage', `v1,${hex}`],
  ])('fx rejects %s as malformed', (_description, signature) => {
    expect(verifyOnce(verifyFxWebhook, { ...fxHeaders(), 'x-service-signature-256': signature })).toStrictEqual({
      ok: false,
      reason: 'malformed_header',
      message: 'X-Service-Signature-256 must be 64 hex characters',
    });
  });

  it('fx rejects an announced signature version other than 2, and tolerates its absence', () => {
    const { 'x-service-signature-version': _version, ...withoutVersion } = fxHeaders();
    expect(verifyOnce(verifyFxWebhook, withoutVersion)).toStrictEqual({ ok: true, timestamp: SIGNED_AT });
    expect(verifyOnce(verifyFxWebhook, { ...withoutVersion, 'x-service-signature-version': '3' })).toStrictEqual({
      ok: false,
      reason: 'malformed_header',
      message: 'X-Service-Signature-Version is "3"; only version 2 is supported',
    });
  });

  it('does not accept an identity delivery as an FX one or vice versa', () => {
    expect(verifyOnce(verifyFxWebhook, identityHeaders())).toMatchObject({ reason: 'missing_header' });
    expect(verifyOnce(verifyIdentityWebhook, fxHeaders())).toMatchObject({ reason: 'missing_header' });
  });
});

describe('assertValid*Webhook', () => {
  const options = (headers: HeaderRecord, overrides: Partial<VerifyOptions> = {}): VerifyOptions => ({
    secret: SECRET,
    headers,
    rawBody: BODY,
    now: atSigningTime,
    ...overrides,
  });

  it('returns the timestamp when valid', () => {
    expect(assertValidIdentityWebhook(options(identityHeaders()))).toStrictEqual({ timestamp: SIGNED_AT });
    expect(assertValidFxWebhook(options(fxHeaders()))).toStrictEqual({ timestamp: SIGNED_AT });
  });

  it('throws WebhookVerificationError carrying the reason', () => {
    let thrown: unknown;
    try {
      assertValidFxWebhook(options(fxHeaders(), { rawBody: `${BODY} ` }));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(WebhookVerificationError);
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).toMatchObject({
      name: 'WebhookVerificationError',
      reason: 'signature_mismatch',
      message: 'X-Service-Signature-256 does not match the body; sign and verify the raw bytes, never re-serialised JSON',
    });
  });

  it('throws for identity with the stale reason', () => {
    expect(() => assertValidIdentityWebhook(options(identityHeaders(), { now: clockAt(SIGNED_AT + 301) }))).toThrow(
      expect.objectContaining({ reason: 'stale_timestamp' }),
    );
  });
});
