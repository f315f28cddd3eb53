import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSecretBox, GENERATED_KEY_FILE, loadSecretsKey } from '../src/index.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-secrets-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('createSecretBox (AES-256-GCM)', () => {
  const box = createSecretBox(randomBytes(32));

  it('round-trips and never repeats a ciphertext', () => {
    const sealed = box.encrypt('whsec_example');
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('whsec_example');
    expect(box.decrypt(sealed)).toBe('whsec_example');
    expect(box.encrypt('whsec_example')).not.toBe(sealed);
  });

  it('binds a ciphertext to its associated data', () => {
    const sealed = box.encrypt('secret', 'webhook:1');
    expect(box.decrypt(sealed, 'webhook:1')).toBe('secret');
    expect(() => box.decrypt(sealed, 'webhook:2')).toThrow();
    expect(() => box.decrypt(sealed)).toThrow();
  });

  it('refuses a tampered ciphertext, another key, and unknown formats', () => {
    const sealed = box.encrypt('secret');
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
    expect(() => box.decrypt(`v1.${raw.toString('base64url')}`)).toThrow();
    expect(() => createSecretBox(randomBytes(32)).decrypt(sealed)).toThrow();
    expect(() => box.decrypt('v2.abc')).toThrow('unsupported secret format');
    expect(() => box.decrypt('v1.abc')).toThrow('truncated secret');
    expect(() => createSecretBox(randomBytes(16))).toThrow('32 bytes');
  });
});

describe('loadSecretsKey', () => {
  it('uses the configured key', () => {
    const hex = randomBytes(32).toString('hex');
    expect(loadSecretsKey({ configured: hex, dataDir: tempDir(), databaseUrl: 'postgres://h/db' })).toEqual({ key: Buffer.from(hex, 'hex'), source: 'environment' });
  });

  it('requires a key with DATABASE_URL', () => {
    expect(() => loadSecretsKey({ configured: undefined, dataDir: tempDir(), databaseUrl: 'postgres://h/db' })).toThrow('SECRETS_KEY is required when DATABASE_URL is set');
  });

  it('generates a key once into DATA_DIR (mode 600) and reuses it afterwards', () => {
    const dataDir = tempDir();
    const first = loadSecretsKey({ configured: undefined, dataDir, databaseUrl: undefined });
    expect(first.source).toBe('generated');
    expect(first.key).toHaveLength(32);
    const path = join(dataDir, GENERATED_KEY_FILE);
    expect(readFileSync(path, 'utf8').trim()).toBe(first.key.toString('hex'));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const second = loadSecretsKey({ configured: undefined, dataDir, databaseUrl: undefined });
    expect(second).toEqual({ key: first.key, source: 'data-dir' });
  });

  it('refuses a corrupted key file instead of silently replacing it', () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, GENERATED_KEY_FILE), 'garbage');
    expect(() => loadSecretsKey({ configured: undefined, dataDir, databaseUrl: undefined })).toThrow('does not hold a valid key');
  });
});
