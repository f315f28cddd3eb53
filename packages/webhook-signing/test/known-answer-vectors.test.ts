import { describe, expect, it } from 'vitest';
import { computeSignature } from '../src/index.js';

// Every expected value below was computed with OpenSSL 3.0 (not with this library) by running the
// command in the comment above it in bash. `printf '%s'` passes the UTF-8 bytes of the text through
// unchanged; octal escapes (\377) produce raw bytes. `-hmac` uses the key string's bytes as the key.
const SECRET = 'whsec_test_5pV9c2kQ8mZrT1xYwA3nB7dF0gH4jL6s';

describe('computeSignature known-answer vectors (openssl)', () => {
  it('signs a small ASCII JSON body', () => {
    // printf '%s' '1700000000.{"a":1}' | openssl dgst -sha256 -hmac 'whsec_test_5pV9c2kQ8mZrT1xYwA3nB7dF0gH4jL6s'
    const expected = 'fd201898ca6721c573d20c88425b6a2f9073128d08cce2ef113d2af24308255f';
    expect(computeSignature(SECRET, 1700000000, '{"a":1}')).toBe(expected);
    expect(computeSignature(SECRET, '1700000000', '{"a":1}')).toBe(expected);
    expect(computeSignature(SECRET, 1700000000, Buffer.from('{"a":1}', 'utf8'))).toBe(expected);
  });

  it('encodes a string body with non-ASCII (Arabic) text as UTF-8', () => {
    // printf '%s' '1700000000.{"text":"مرحبا بالعالم","currency":"ل.س"}' | openssl dgst -sha256 -hmac 'whsec_test_5pV9c2kQ8mZrT1xYwA3nB7dF0gH4jL6s'
    const expected = '0e7e89bf210770786fbd53ff40a80b22dc7508972cf076fa2657955c0ba66ab6';
    const body = '{"text":"مرحبا بالعالم","currency":"ل.س"}';
    expect(computeSignature(SECRET, 1700000000, body)).toBe(expected);
    expect(computeSignature(SECRET, 1700000000, new TextEncoder().encode(body))).toBe(expected);
  });

  it('signs a Buffer body byte for byte, including bytes that are not valid UTF-8', () => {
    // printf '1700000000.\377\376\000\200{"a":1}\300' | openssl dgst -sha256 -hmac 'whsec_test_5pV9c2kQ8mZrT1xYwA3nB7dF0gH4jL6s'
    const expected = '8a191995f8e9dcd35ddb1341424a87f49c2d2bb006bec44ef4ab9134cca6c7f5';
    const body = Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 0x80]), Buffer.from('{"a":1}'), Buffer.from([0xc0])]);
    expect(computeSignature(SECRET, 1700000000, body)).toBe(expected);
    // Decoding those bytes as UTF-8 replaces them with U+FFFD, so a receiver that stringifies the body first fails.
    expect(computeSignature(SECRET, 1700000000, body.toString('utf8'))).not.toBe(expected);
  });

  it('uses the bytes of a Uint8Array view, not its whole underlying buffer', () => {
    // Same command and digest as the ASCII vector: printf '%s' '1700000000.{"a":1}' | openssl dgst ...
    const backing = Buffer.from('xx{"a":1}yy', 'utf8');
    const view = new Uint8Array(backing.buffer, backing.byteOffset + 2, 7);
    expect(computeSignature(SECRET, 1700000000, view)).toBe('fd201898ca6721c573d20c88425b6a2f9073128d08cce2ef113d2af24308255f');
  });

  it('signs an empty body as "{timestamp}."', () => {
    // printf '%s' '1700000000.' | openssl dgst -sha256 -hmac 'whsec_test_5pV9c2kQ8mZrT1xYwA3nB7dF0gH4jL6s'
    expect(computeSignature(SECRET, 1700000000, '')).toBe('972c2dc8ef669ee90a97fcadb3ad718fa7e405bc9eab3f07b8324e04e85e25a3');
  });

  it('signs an identity-style payload', () => {
    // printf '%s' '1732330000.{"eventType":"verification.approved","eventId":"evt_6f1c2b1e-3d4a-4c5b-9e8f-0a1b2c3d4e5f","apiVersion":"v1"}' | openssl dgst -sha256 -hmac 'whsec_test_5pV9c2kQ8mZrT1xYwA3nB7dF0gH4jL6s'
    const body = '{"eventType":"verification.approved","eventId":"evt_6f1c2b1e-3d4a-4c5b-9e8f-0a1b2c3d4e5f","apiVersion":"v1"}';
    expect(computeSignature(SECRET, 1732330000, body)).toBe('6529b937334c9610376509d53c2c4c6c48ad678871a847e5a67bf941e87c9e42');
  });

  it('keys the HMAC with the full whsec_ string, never the base64-decoded tail (unlike Standard Webhooks)', () => {
    const standardWebhooksStyleSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"test": 2432232314}';
    // printf '%s' '1614265330.{"test": 2432232314}' | openssl dgst -sha256 -hmac 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
    const withFullStringKey = '2e37df5d4a028c51a7f3133d64ae1e300d2c2c900f1b1d49d4369ad2530f8964';
    // K=$(printf '%s' 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' | base64 -d | xxd -p -c 256)   # 31f290f6bf06298aab4f08d43c3f082cf648a362da2da4b0
    // printf '%s' '1614265330.{"test": 2432232314}' | openssl dgst -sha256 -mac HMAC -macopt hexkey:$K
    const withDecodedKey = 'e96203c6de850e7dc1fde7489ef6140b402d3a5a64fe250cd2eef9830fac1cef';
    const signature = computeSignature(standardWebhooksStyleSecret, 1614265330, body);
    expect(signature).toBe(withFullStringKey);
    expect(signature).not.toBe(withDecodedKey);
  });
});

describe('computeSignature input checks', () => {
  it('signs a string timestamp exactly as written, leading zeros included', () => {
    expect(computeSignature(SECRET, '01700000000', '{"a":1}')).not.toBe(computeSignature(SECRET, 1700000000, '{"a":1}'));
  });

  it.each([1.5, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])('rejects the numeric timestamp %s', (timestamp) => {
    expect(() => computeSignature(SECRET, timestamp, '{}')).toThrow(RangeError);
  });

  it.each(['', '17e8', ' 1700000000', '-5', '0x10'])('rejects the string timestamp %j', (timestamp) => {
    expect(() => computeSignature(SECRET, timestamp, '{}')).toThrow(RangeError);
  });

  it('rejects an empty secret', () => {
    expect(() => computeSignature('', 1700000000, '{}')).toThrow('webhook signing secret must be a non-empty string');
  });

  it('rejects a parsed body object with a hint to verify before JSON parsing', () => {
    const parsedBody: unknown = { a: 1 };
    expect(() => computeSignature(SECRET, 1700000000, parsedBody as string)).toThrow(
      'rawBody must be the raw request body as a string or Uint8Array/Buffer, got object; verify before any JSON body parser runs',
    );
  });
});
