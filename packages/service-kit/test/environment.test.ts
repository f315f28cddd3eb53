import { describe, expect, it } from 'vitest';
import { baseServiceEnvironment, ConfigError, decodeSecretsKey, parseEnvironment, requireSecretsKeyWithDatabase } from '../src/index.js';

const schema = baseServiceEnvironment(3001).superRefine(requireSecretsKeyWithDatabase);
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
    expect(config).toEqual({ PORT: 3001, HOST: '127.0.0.1', METRICS_HOST: '127.0.0.1', LOG_LEVEL: 'info' });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('treats empty strings as unset', () => {
    expect(parseEnvironment(schema, { PORT: '', DATABASE_URL: '', REDIS_URL: ' ', METRICS_PORT: '' })).toEqual({ PORT: 3001, HOST: '127.0.0.1', METRICS_HOST: '127.0.0.1', LOG_LEVEL: 'info' });
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
