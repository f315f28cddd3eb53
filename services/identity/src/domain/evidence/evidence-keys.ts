import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { z } from 'zod';

/** A key-encryption key: seals the data keys of evidence objects, never the objects themselves. */
export interface KeyEncryptionKey {
  id: string;
  key: Buffer;
}

/** A data key sealed under one key-encryption key; what the evidence row keeps instead of the key. */
export interface SealedDataKey {
  keyId: string;
  sealed: string;
}

const KEY_ID = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * EVIDENCE_KEYS: `id:base64key[,id:base64key…]`, each key 32 bytes; the first seals new data
 * keys, the others only open what they sealed before (rotation: put the new key first, run
 * `cli evidence:rekey`, then drop the old one).
 */
export const evidenceKeysVariable = z
  .string()
  .optional()
  .transform((value, context): KeyEncryptionKey[] | undefined => {
    if (value === undefined || value.trim() === '') return undefined;
    const keys: KeyEncryptionKey[] = [];
    for (const entry of value.split(',').map((item) => item.trim())) {
      const separator = entry.indexOf(':');
      const id = entry.slice(0, separator);
      const key = Buffer.from(entry.slice(separator + 1), 'base64');
      if (separator < 1 || !KEY_ID.test(id)) {
        context.addIssue({ code: 'custom', message: 'must be id:base64key pairs separated by commas (ids of letters, digits, _ . -)' });
        return z.NEVER;
      }
      if (key.length !== 32) {
        context.addIssue({ code: 'custom', message: `key ${id} must be 32 bytes in base64 (openssl rand -base64 32)` });
        return z.NEVER;
      }
      if (keys.some((existing) => existing.id === id)) {
        context.addIssue({ code: 'custom', message: `key id ${id} is listed twice` });
        return z.NEVER;
      }
      keys.push({ id, key });
    }
    return keys;
  });

/** Raised when a data key cannot be opened: its key id is not configured, or the sealed bytes fail authentication. */
export class DataKeyUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DataKeyUnavailableError';
  }
}

export interface EvidenceKeyRing {
  /** The id of the key that seals new data keys. */
  readonly currentKeyId: string;
  /** A fresh random data key and its sealed form; `boundTo` (the evidence id) must be given again to open it. */
  newDataKey(boundTo: string): { dataKey: Buffer; sealed: SealedDataKey };
  openDataKey(sealed: SealedDataKey, boundTo: string): Buffer;
  /** The same data key sealed under the current key (rotation). */
  reseal(sealed: SealedDataKey, boundTo: string): SealedDataKey;
  /** HMAC-SHA-256 of a document number under a service key: finds reuse without keeping the number. */
  documentNumberDigest: (documentNumber: string) => string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Without EVIDENCE_KEYS the key-encryption key is derived from SECRETS_KEY (HKDF, its own
 * label), so every deployment encrypts evidence from the start. It stays in the ring for opening
 * once EVIDENCE_KEYS is set, so moving to configured keys is: set them, run evidence:rekey.
 */
export const DERIVED_KEY_ID = 'secrets-key';

function derive(secretsKey: Buffer, label: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), label, 32));
}

export function createEvidenceKeyRing(configured: readonly KeyEncryptionKey[] | undefined, secretsKey: Buffer): EvidenceKeyRing {
  const derived = { id: DERIVED_KEY_ID, key: derive(secretsKey, 'identity evidence key-encryption key') };
  const keys = configured && configured.length > 0 ? configured : [derived];
  // The derived key keeps opening what it sealed after EVIDENCE_KEYS is first set (until evidence:rekey moves it).
  const byId = new Map([[derived.id, derived.key], ...keys.map((entry) => [entry.id, entry.key] as const)]);
  const current = keys[0]!;
  // Separate from the evidence keys: rotating those must not change the digests that find reuse.
  const documentNumberKey = derive(secretsKey, 'identity document-number digest');

  const seal = (dataKey: Buffer, boundTo: string): SealedDataKey => {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', current.key, iv);
    cipher.setAAD(Buffer.from(`evidence-data-key:${boundTo}`, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(dataKey), cipher.final()]);
    return { keyId: current.id, sealed: Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64') };
  };

  const open = (sealed: SealedDataKey, boundTo: string): Buffer => {
    const kek = byId.get(sealed.keyId);
    if (!kek) throw new DataKeyUnavailableError(`the key-encryption key ${sealed.keyId} is not in EVIDENCE_KEYS`);
    const raw = Buffer.from(sealed.sealed, 'base64');
    try {
      const decipher = createDecipheriv('aes-256-gcm', kek, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      decipher.setAAD(Buffer.from(`evidence-data-key:${boundTo}`, 'utf8'));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
    } catch {
      throw new DataKeyUnavailableError(`the data key does not open with key-encryption key ${sealed.keyId}`);
    }
  };

  return {
    currentKeyId: current.id,
    newDataKey(boundTo) {
      const dataKey = randomBytes(32);
      return { dataKey, sealed: seal(dataKey, boundTo) };
    },
    openDataKey: open,
    reseal: (sealed, boundTo) => seal(open(sealed, boundTo), boundTo),
    documentNumberDigest: (documentNumber) => createHmac('sha256', documentNumberKey).update(documentNumber.trim().toUpperCase(), 'utf8').digest('hex'),
  };
}
