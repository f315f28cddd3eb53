import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline, type Readable, Transform } from 'node:stream';
import { pipeline as pipelinePromise } from 'node:stream/promises';
import { ProblemError } from '@svc/problem-json';
import { createDecryptStream, createEncryptStream, ENVELOPE_ENCRYPTION, EnvelopeAuthenticationError } from './envelope-stream.js';
import { DataKeyUnavailableError, type EvidenceKeyRing } from './evidence-keys.js';
import type { EvidenceStorage, StoredObject } from './evidence-storage.js';

/** The columns of an evidence row that say where its object is and how to open it. */
export interface EvidenceObjectRef {
  id: string;
  storageKey: string;
  fileSizeBytes: number;
  encryption: string;
  dataKeyId: string | null;
  sealedDataKey: string | null;
}

/** What to record on the evidence row for an object just stored. */
export interface EvidenceSealing {
  encryption: string;
  dataKeyId: string;
  sealedDataKey: string;
}

/** 500: the object was altered, or the configured keys are not the ones it was sealed with. Never garbage bytes instead. */
export class EvidenceUnreadableError extends ProblemError {
  constructor(evidenceId: string, cause: unknown) {
    super({
      status: 500,
      code: 'EVIDENCE_UNREADABLE',
      title: 'Evidence Unreadable',
      detail: `Evidence ${evidenceId} cannot be decrypted: it failed authentication. The operators have been told.`,
      extensions: { evidenceId },
      cause,
    });
  }
}

/** Its data key was destroyed by redaction: the bytes, wherever a copy survives, can no longer be read. */
export class EvidenceKeyDestroyedError extends Error {
  constructor(readonly evidenceId: string) {
    super(`The data key of evidence ${evidenceId} was destroyed by redaction.`);
    this.name = 'EvidenceKeyDestroyedError';
  }
}

/**
 * Evidence bytes with encryption at rest: every object is sealed with its own data key before
 * it reaches the store (file system or S3), and read back through one path that authenticates
 * every byte it hands on. Stores stay unaware of encryption; the database keeps the sealed keys.
 */
export interface EvidenceVault {
  readonly storage: EvidenceStorage;
  readonly keyRing: EvidenceKeyRing;
  /** Where callers spool uploads before `store` (the store's spool directory). */
  readonly spoolDir: string;
  /** Seals the plaintext file at `sourcePath` and stores it under `storageKey`. The caller deletes sourcePath afterwards. */
  store(evidenceId: string, storageKey: string, sourcePath: string, meta: { contentType: string }): Promise<EvidenceSealing>;
  /**
   * For callers that already stream the plaintext somewhere (an upload being spooled): a
   * transform that seals it on the way, so the bytes are written once, already encrypted, and
   * the columns to record. Store the result with `storeSealed`.
   */
  createSealer(evidenceId: string): { seal: Transform; sealing: EvidenceSealing };
  /** Whether storeSealed needs the ciphertext's SHA-256 (S3 verifies what it receives; a rename needs nothing). */
  readonly needsCiphertextDigest: boolean;
  /** Stores a file of ciphertext made by a sealer; size and SHA-256 (empty when not needed) are the ciphertext's. The caller deletes sealedPath afterwards. */
  storeSealed(storageKey: string, sealedPath: string, meta: { sizeBytes: number; sha256Hex: string }): Promise<void>;
  /**
   * The plaintext of an object, `sizeBytes` being the plaintext's. The first chunk is
   * authenticated before this resolves, so a wrong key or a tampered start is an
   * EvidenceUnreadableError here, before any byte is sent; a later tampered chunk errors the stream.
   */
  open(ref: EvidenceObjectRef): Promise<StoredObject>;
  delete(storageKey: string): Promise<void>;
}

export function createEvidenceVault(storage: EvidenceStorage, keyRing: EvidenceKeyRing): EvidenceVault {
  const createSealer = (evidenceId: string) => {
    const { dataKey, sealed } = keyRing.newDataKey(evidenceId);
    const seal = createEncryptStream(dataKey, evidenceId);
    return { seal, sealing: { encryption: ENVELOPE_ENCRYPTION, dataKeyId: sealed.keyId, sealedDataKey: sealed.sealed } };
  };
  // The store sees only ciphertext: its type says nothing about the person's document.
  const storeSealed = (storageKey: string, sealedPath: string, meta: { sizeBytes: number; sha256Hex: string }) =>
    storage.putFile(storageKey, sealedPath, { contentType: 'application/octet-stream', ...meta });
  return {
    storage,
    keyRing,
    spoolDir: storage.spoolDir,
    needsCiphertextDigest: storage.kind === 's3',
    createSealer,
    storeSealed,
    async store(evidenceId, storageKey, sourcePath) {
      const { seal, sealing } = createSealer(evidenceId);
      const sealedPath = join(storage.spoolDir, `${randomUUID()}.sealed`);
      try {
        await storeSealed(storageKey, sealedPath, await sealFile(sourcePath, sealedPath, seal));
      } finally {
        await unlink(sealedPath).catch(() => undefined);
      }
      return sealing;
    },
    async open(ref) {
      if (ref.encryption === 'none') return storage.get(ref.storageKey);
      if (ref.sealedDataKey === null || ref.dataKeyId === null) throw new EvidenceKeyDestroyedError(ref.id);
      let dataKey: Buffer;
      try {
        dataKey = keyRing.openDataKey({ keyId: ref.dataKeyId, sealed: ref.sealedDataKey }, ref.id);
      } catch (error) {
        if (error instanceof DataKeyUnavailableError) throw new EvidenceUnreadableError(ref.id, error);
        throw error;
      }
      const stored = await storage.get(ref.storageKey);
      return { body: await authenticatedPlaintext(dataKey, ref.id, stored.body), sizeBytes: ref.fileSizeBytes };
    },
    delete: (storageKey) => storage.delete(storageKey),
  };
}

/** Streams source through `seal` into a new private file, counting and hashing what is written (S3 verifies the hash). */
async function sealFile(sourcePath: string, targetPath: string, seal: Transform): Promise<{ sizeBytes: number; sha256Hex: string }> {
  const hash = createHash('sha256');
  let sizeBytes = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      sizeBytes += chunk.length;
      hash.update(chunk);
      callback(null, chunk);
    },
  });
  await pipelinePromise(createReadStream(sourcePath), seal, meter, createWriteStream(targetPath, { mode: 0o600 }));
  return { sizeBytes, sha256Hex: hash.digest('hex') };
}

/**
 * The decrypting stream itself, piped from the ciphertext, once its first chunk has been
 * authenticated (or the whole object, when it is a single chunk): the caller hands it straight to
 * the reply, with no intermediate stream. Failures reach it as EvidenceUnreadableError. `pipeline`
 * ties the two: whichever fails or is closed first (a client gone away) ends the other, so the
 * store's descriptor or socket is always released, and it listens for errors meanwhile, so a
 * failure before the caller reads is held on the stream, not thrown into the process.
 */
async function authenticatedPlaintext(dataKey: Buffer, evidenceId: string, ciphertext: Readable): Promise<Readable> {
  const unreadable = (error: Error) => (error instanceof EnvelopeAuthenticationError ? new EvidenceUnreadableError(evidenceId, error) : error);
  const plaintext = createDecryptStream(dataKey, evidenceId, { wrapError: unreadable });
  pipeline(ciphertext, plaintext, () => undefined);
  await new Promise<void>((resolve, reject) => {
    const settle = (error?: Error) => {
      plaintext.off('authenticated', onAuthenticated).off('error', onError).off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onAuthenticated = () => settle();
    const onError = (error: Error) => settle(unreadable(error));
    const onClose = () => settle(plaintext.errored ? unreadable(plaintext.errored) : new Error(`The object of evidence ${evidenceId} closed before its first chunk was read.`));
    plaintext.on('authenticated', onAuthenticated).on('error', onError).on('close', onClose);
  });
  return plaintext;
}
