import { describe, expect, it } from 'vitest';
import { baseServiceEnvironment, ConfigError, decodeSecretsKey, listenerTimeoutsOf, parseEnvironment, requireHeadersWithinRequestTimeout, requireSecretsKeyWithDatabase } from '../src/index.js';

const schema = baseServiceEnvironment(3001).superRefine(requireSecretsKeyWithDatabase).superRefine(requireHeadersWithinRequestTimeout);
const LISTENER_DEFAULTS = {
  HTTP_HEADERS_TIMEOUT_MS: 20_000,
  HTTP_KEEP_ALIVE_TIMEOUT_MS: 72_000,
  HTTP_REQUEST_TIMEOUT_MS: 600_000,
  HTTP_SILENCE_TIMEOUT_MS: 30_000,
  SHUTDOWN_GRACE_MS: 2_000,
};
const HEX_KEY = 'a'.repeat(64);

function problemsOf(env: Record<string, string | undefined>): string[] {
  try {
    parseEnvironment(schema, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('parseEnvironment', () => {
  it('applies defaults and freezes the result', () => {
    const config = parseEnvironment(schema, {});
    expect(config).toEqual({ PORT: 3001, HOST: '127.0.0.1', METRICS_HOST: '127.0.0.1', LOG_LEVEL: 'info', ...LISTENER_DEFAULTS });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('treats empty strings as unset', () => {
    expect(parseEnvironment(schema, { PORT: '', DATABASE_URL: '', REDIS_URL: ' ', METRICS_PORT: '' })).toEqual({ PORT: 3001, HOST: '127.0.0.1', METRICS_HOST: '127.0.0.1', LOG_LEVEL: 'info', ...LISTENER_DEFAULTS });
  });

  it('names every bad variable in one error, with the offending value', () => {
    const problems = problemsOf({ PORT: 'eighty', DATABASE_URL: 'mysql://x', REDIS_URL: 'http://localhost', LOG_LEVEL: 'loud' });
    expect(problems).toHaveLength(4);
    expect(problems.find((p) => p.startsWith('PORT:'))).toContain('(got "eighty")');
    expect(problems.find((p) => p.startsWith('DATABASE_URL:'))).toContain('postgres:// or postgresql://');
    expect(problems.find((p) => p.startsWith('REDIS_URL:'))).toContain('redis:// or rediss://');
    expect(problems.some((p) => p.startsWith('LOG_LEVEL:'))).toBe(true);
  });

  it('rejects an out-of-range port', () => {
    expect(problemsOf({ PORT: '70000' })[0]).toMatch(/^PORT:/);
  });

  it('leaves metrics off unless METRICS_PORT is set, on loopback unless METRICS_HOST says otherwise', () => {
    expect(parseEnvironment(schema, {}).METRICS_PORT).toBeUndefined();
    expect(parseEnvironment(schema, { METRICS_PORT: '9301' })).toMatchObject({ METRICS_PORT: 9301, METRICS_HOST: '127.0.0.1' });
    expect(parseEnvironment(schema, { METRICS_PORT: '9301', METRICS_HOST: '0.0.0.0' }).METRICS_HOST).toBe('0.0.0.0');
    expect(problemsOf({ METRICS_PORT: 'ninety' })).toEqual(['METRICS_PORT: must be a port number (got "ninety")']);
    expect(problemsOf({ METRICS_PORT: '0' })).toEqual(['METRICS_PORT: must be from 1 to 65535 (got "0")']);
  });

  it('requires SECRETS_KEY with DATABASE_URL, and hides secret values in messages', () => {
    expect(problemsOf({ DATABASE_URL: 'postgres://localhost/db' })).toEqual([
      expect.stringMatching(/^SECRETS_KEY: is required when DATABASE_URL is set/),
    ]);
    const [problem] = problemsOf({ SECRETS_KEY: 'not-a-key-but-a-secret' });
    expect(problem).toMatch(/^SECRETS_KEY: must be 32 bytes/);
    expect(problem).not.toContain('not-a-key-but-a-secret');
    expect(parseEnvironment(schema, { DATABASE_URL: 'postgresql://u@h:5432/db', SECRETS_KEY: HEX_KEY }).SECRETS_KEY).toBe(HEX_KEY);
  });
});

describe('listener timeouts', () => {
  it('default to a 10-minute request, 30 s of silence, 20 s for headers, and take milliseconds', () => {
    expect(listenerTimeoutsOf(parseEnvironment(schema, {}))).toEqual({
      headersTimeoutMs: 20_000,
      keepAliveTimeoutMs: 72_000,
      requestTimeoutMs: 600_000,
      silenceTimeoutMs: 30_000,
      shutdownGraceMs: 2_000,
    });
    expect(parseEnvironment(schema, { HTTP_SILENCE_TIMEOUT_MS: '250', SHUTDOWN_GRACE_MS: '0' })).toMatchObject({ HTTP_SILENCE_TIMEOUT_MS: 250, SHUTDOWN_GRACE_MS: 0 });
  });

  it('refuse values out of range, fractions and words, naming the variable', () => {
    expect(problemsOf({ HTTP_SILENCE_TIMEOUT_MS: '0' })).toEqual(['HTTP_SILENCE_TIMEOUT_MS: must be at least 100 (got "0")']);
    expect(problemsOf({ HTTP_REQUEST_TIMEOUT_MS: '1.5' })[0]).toMatch(/^HTTP_REQUEST_TIMEOUT_MS: must be a whole number/);
    expect(problemsOf({ HTTP_KEEP_ALIVE_TIMEOUT_MS: 'long' })[0]).toMatch(/^HTTP_KEEP_ALIVE_TIMEOUT_MS: must be a number/);
    expect(problemsOf({ SHUTDOWN_GRACE_MS: '600000' })).toEqual(['SHUTDOWN_GRACE_MS: must be at most 60000 (got "600000")']);
  });

  it('refuse a headers timeout above the request timeout (Node would refuse it at start)', () => {
    expect(problemsOf({ HTTP_HEADERS_TIMEOUT_MS: '60000', HTTP_REQUEST_TIMEOUT_MS: '30000' })).toEqual(['HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS (30000) (got "60000")']);
  });
});

describe('decodeSecretsKey', () => {
  it('accepts 64 hex characters and 32-byte base64 or base64url', () => {
    const bytes = Buffer.from(Array.from({ length: 32 }, (_, i) => i * 7 + 250));
    expect(decodeSecretsKey(bytes.toString('hex'))).toEqual(bytes);
    expect(decodeSecretsKey(bytes.toString('hex').toUpperCase())).toEqual(bytes);
    expect(decodeSecretsKey(bytes.toString('base64'))).toEqual(bytes);
    expect(decodeSecretsKey(bytes.toString('base64url'))).toEqual(bytes);
  });
  it('refuses other lengths and alphabets', () => {
    expect(decodeSecretsKey('ab'.repeat(31))).toBeNull();
    expect(decodeSecretsKey('zz'.repeat(32))).toBeNull();
    expect(decodeSecretsKey(Buffer.alloc(24).toString('base64'))).toBeNull();
    expect(decodeSecretsKey('')).toBeNull();
  });
});
