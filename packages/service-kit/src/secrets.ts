import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeSecretsKey } from './environment.js';

/**
 * AES-256-GCM for secrets a service must read back (webhook signing secrets). Everything
 * else secret (tokens, passwords, API keys) is stored as a hash and never needs this.
 * Ciphertext format: `v1.<base64url(iv ‖ tag ‖ ciphertext)>`; the version prefix leaves
 * room for key rotation. Optional associated data binds a ciphertext to its row, so a
 * secret copied into another row does not decrypt.
 */
export interface SecretBox {
  encrypt(plaintext: string, associatedData?: string): string;
  decrypt(sealed: string, associatedData?: string): string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('SECRETS_KEY must be 32 bytes');
  return {
    encrypt(plaintext, associatedData) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      if (associatedData !== undefined) cipher.setAAD(Buffer.from(associatedData, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `v1.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`;
    },
    decrypt(sealed, associatedData) {
      if (!sealed.startsWith('v1.')) throw new Error('unsupported secret format');
      const raw = Buffer.from(sealed.slice(3), 'base64url');
      if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('truncated secret');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      if (associatedData !== undefined) decipher.setAAD(Buffer.from(associatedData, 'utf8'));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
}

export const GENERATED_KEY_FILE = 'secrets.key';

/**
 * The configured key, or on the embedded default a key generated once into DATA_DIR and
 * reused by every later start, the CLI and the other service. Written to a temporary
 * file and linked into place, so two processes starting together agree on one key and
 * neither can read a half-written file.
 */
export function loadSecretsKey(options: { configured: string | undefined; dataDir: string; databaseUrl: string | undefined }): {
  key: Buffer;
  source: 'environment' | 'generated' | 'data-dir';
} {
  if (options.configured) {
    const key = decodeSecretsKey(options.configured);
    if (!key) throw new Error('SECRETS_KEY must be 32 bytes written as 64 hex characters or as base64');
    return { key, source: 'environment' };
  }
  if (options.databaseUrl) throw new Error('SECRETS_KEY is required when DATABASE_URL is set');
  mkdirSync(options.dataDir, { recursive: true });
  const path = join(options.dataDir, GENERATED_KEY_FILE);
  const existing = readKeyFile(path);
  if (existing) return { key: existing, source: 'data-dir' };
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(temporary, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  let created = true;
  try {
    linkSync(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    created = false;
  } finally {
    unlinkSync(temporary);
  }
  const key = readKeyFile(path);
  if (!key) throw new Error(`${path} does not hold a valid key; delete it only if nothing was encrypted with it`);
  return { key, source: created ? 'generated' : 'data-dir' };
}

function readKeyFile(path: string): Buffer | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const key = decodeSecretsKey(text);
  if (!key) throw new Error(`${path} does not hold a valid key; delete it only if nothing was encrypted with it`);
  return key;
}
