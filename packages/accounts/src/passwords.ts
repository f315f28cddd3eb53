import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hash, verify } from '@node-rs/argon2';
import { z } from 'zod';
import { verifyPassword as verifyScryptPassword } from './credentials.js';

/**
 * OWASP's Argon2id configuration (m = 19 MiB, t = 2, p = 1): about 40 ms a sign-in on this
 * 2-core box, and 19 MiB of memory per concurrent sign-in rather than scrypt's 128.
 */
// 2 is Argon2id in the library's const enum, which isolated modules cannot import.
export const ARGON2_PARAMETERS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1, outputLen: 32 } as const;

/**
 * The most common passwords of 12 characters or more (lower-cased) from the SecLists top-million
 * list, shipped with the code so the check needs no network; found the same way from src/ and dist/.
 */
const commonPasswords: ReadonlySet<string> = new Set(
  readFileSync(new URL('../data/common-passwords.txt', import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.length > 0),
);

export function isCommonPassword(password: string): boolean {
  return commonPasswords.has(password.normalize('NFKC').toLowerCase());
}

/** A new password: 12 to 256 characters and not one of the common ones. Existing passwords are never re-judged. */
export const newPasswordSchema = z
  .string()
  .min(12, 'must be at least 12 characters')
  .max(256, 'must be at most 256 characters')
  .refine((password) => !isCommonPassword(password), { message: 'is one of the most common passwords: choose another' });

export async function hashPassword(password: string): Promise<string> {
  return hash(password.normalize('NFKC'), ARGON2_PARAMETERS);
}

/**
 * Verifies against either scheme; `upgrade` says the stored hash should be replaced by a fresh
 * Argon2id one now that the password is known (older scrypt hashes, or weaker Argon2 parameters).
 */
export async function checkPassword(password: string, stored: string): Promise<{ matches: boolean; upgrade: boolean }> {
  if (stored.startsWith('$argon2')) {
    let matches = false;
    try {
      matches = await verify(stored, password.normalize('NFKC'));
    } catch {
      // A damaged hash matches nothing.
      return { matches: false, upgrade: false };
    }
    return { matches, upgrade: matches && !stored.startsWith(currentPrefix) };
  }
  const matches = await verifyScryptPassword(password, stored);
  return { matches, upgrade: matches };
}

const currentPrefix = `$argon2id$v=19$m=${ARGON2_PARAMETERS.memoryCost},t=${ARGON2_PARAMETERS.timeCost},p=${ARGON2_PARAMETERS.parallelism}$`;

/**
 * The hash of a password nobody knows: a sign-in for an unknown email verifies against it, so
 * both answers cost one Argon2id and take the same time.
 */
export const UNKNOWN_USER_PASSWORD_HASH: Promise<string> = hashPassword(randomBytes(32).toString('hex'));
