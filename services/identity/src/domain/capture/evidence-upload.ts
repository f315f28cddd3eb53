import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DependencyUnavailableError, PayloadTooLargeError, ProblemError } from '@svc/problem-json';
import { fileTypeFromBuffer } from 'file-type';
import { eq, sql } from 'drizzle-orm';
import { auditLog, evidence, type IdentityExecutor } from '../../db/schema.js';
import type { EvidenceType } from '../cases/case-states.js';
import { lockCase } from '../cases/case-transitions.js';
import { reachedCrashPoint } from '../common/crash-points.js';
import type { EvidenceSealing, EvidenceVault } from '../evidence/evidence-vault.js';
import { announceUpload, forgetUpload, takeUpload } from '../evidence/upload-intents.js';
import { assertCapturing, endUserActor, type CaptureSession } from './capture-sessions.js';

export interface UploadLimits {
  maxImageBytes: number;
  maxVideoBytes: number;
}

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/heic', 'image/heif'];
const VIDEO_TYPES = ['video/mp4', 'video/webm', 'video/quicktime'];

/** Which sniffed content types each evidence type accepts, and how they are named to a person. */
export const ACCEPTED_CONTENT: Record<EvidenceType, { types: string[]; names: string; kind: 'image' | 'video' }> = {
  DocumentFront: { types: IMAGE_TYPES, names: 'JPEG, PNG, WebP or HEIC', kind: 'image' },
  DocumentBack: { types: IMAGE_TYPES, names: 'JPEG, PNG, WebP or HEIC', kind: 'image' },
  Selfie: { types: IMAGE_TYPES, names: 'JPEG, PNG, WebP or HEIC', kind: 'image' },
  LivenessVideo: { types: VIDEO_TYPES, names: 'MP4, WebM or QuickTime', kind: 'video' },
};

export function maxBytesFor(evidenceType: EvidenceType, limits: UploadLimits): number {
  return ACCEPTED_CONTENT[evidenceType].kind === 'video' ? limits.maxVideoBytes : limits.maxImageBytes;
}

export class UnsupportedEvidenceContentError extends ProblemError {
  constructor(evidenceType: EvidenceType, sniffed: string | null) {
    super({
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
      title: 'Unsupported Media Type',
      detail: `${evidenceType} must be ${ACCEPTED_CONTENT[evidenceType].names}; the uploaded bytes are ${sniffed ?? 'not a recognised image or video'} (the type is read from the content, not from the file name or Content-Type).`,
      extensions: { evidenceType, detectedContentType: sniffed },
    });
  }
}

interface SpooledFile {
  path: string;
  /** The plaintext's size and SHA-256 (what the partner sees), and its first bytes for sniffing. */
  sizeBytes: number;
  sha256Hex: string;
  head: Buffer;
  /** The ciphertext written to `path`: what the store receives and verifies. */
  sealed: { sizeBytes: number; sha256Hex: string };
}

/** Bytes kept from the start of an upload for sniffing its type: more than any accepted format's signature needs. */
const SNIFF_BYTES = 64 * 1024;

/** Counts (and unless `hashing` is false, hashes) what passes; `limit` stops it with the error it builds. */
function meter(limit?: { maxBytes: number; error: () => Error }, onChunk?: (chunk: Buffer, offset: number) => void, hashing = true) {
  const hash = hashing ? createHash('sha256') : null;
  let sizeBytes = 0;
  const transform = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (limit && sizeBytes + chunk.length > limit.maxBytes) {
        callback(limit.error());
        return;
      }
      onChunk?.(chunk, sizeBytes);
      sizeBytes += chunk.length;
      hash?.update(chunk);
      callback(null, chunk);
    },
  });
  return { transform, result: () => ({ sizeBytes, sha256Hex: hash?.digest('hex') ?? '' }) };
}

/**
 * Streams the upload through encryption to a spool file, hashing and counting the plaintext
 * before and the ciphertext after; past `maxBytes` it stops with 413 and leaves nothing behind.
 * The person's bytes never touch the disk in the clear, and memory stays constant whatever the size.
 */
async function spool(stream: Readable, storage: EvidenceVault, maxBytes: number, evidenceType: EvidenceType, seal: Transform, signal: AbortSignal, copy?: Buffer[]): Promise<SpooledFile> {
  const path = join(storage.spoolDir, `${randomUUID()}.upload`);
  const headChunks: Buffer[] = [];
  const plaintext = meter({ maxBytes, error: () => new PayloadTooLargeError(`${evidenceType} may be at most ${maxBytes} bytes (${(maxBytes / 1_048_576).toFixed(0)} MB).`) }, (chunk, offset) => {
    if (offset < SNIFF_BYTES) headChunks.push(chunk.subarray(0, SNIFF_BYTES - offset));
    copy?.push(chunk);
  });
  const ciphertext = meter(undefined, undefined, storage.needsCiphertextDigest);
  if (signal.aborted) throw signal.reason;
  const file = createWriteStream(path, { mode: 0o600 });
  try {
    // The signal ends a body that stalls or is cut: the streams are destroyed (the descriptor freed) at once.
    await pipeline(stream, plaintext.transform, seal, ciphertext.transform, file, { signal });
  } catch (error) {
    // The file is opened asynchronously: removed before its open completed, it would be created after and stay.
    if (!file.closed) await new Promise<void>((resolve) => file.once('close', () => resolve()));
    await unlink(path).catch(() => undefined);
    throw signal.aborted ? signal.reason : error;
  }
  return { path, ...plaintext.result(), head: Buffer.concat(headChunks), sealed: ciphertext.result() };
}

/**
 * Records a stored upload under its case's row lock: the lock first, then the rest in one
 * statement (the current evidence of the type marked replaced, the new row, its audit row with the
 * columns writeAudit fills). Two statements, not one: in READ COMMITTED a statement sees what was
 * committed when it began, so the replacing must start after the lock is held, or an upload of
 * the same type committed while this one waited for the lock would stay current beside it.
 */
async function recordUpload(
  db: IdentityExecutor,
  session: CaptureSession,
  row: { id: string; evidenceType: EvidenceType; contentType: string; fileSizeBytes: number; originalFileName: string; sha256Hash: string; storageKey: string; sealing: EvidenceSealing; uploadedAt: Date },
  options: { correlationId: string; uploadGraceMs: number; onBodyDone: () => void },
): Promise<void> {
  const { correlationId } = options;
  const at = row.uploadedAt.toISOString();
  const actor = endUserActor(session.sessionId, correlationId);
  const after = { caseId: session.caseId, evidenceType: row.evidenceType, contentType: row.contentType, fileSizeBytes: row.fileSizeBytes, sha256Hash: row.sha256Hash };
  await db.transaction(async (tx) => {
    const locked = await lockCase(tx, session.caseId, session.tenantId);
    assertCapturing({ caseId: locked.id, status: locked.status as CaptureSession['status'], expiresAt: session.expiresAt }, row.uploadedAt);
    if (!(await takeUpload(tx, row.storageKey, options.uploadGraceMs))) {
      throw new DependencyUnavailableError('Storing the evidence took longer than the service allows; send it again.');
    }
    await tx.execute(sql`with replaced as (
          update ${evidence} set replaced_at = ${at}::timestamptz
          where case_id = ${locked.id}::uuid and evidence_type = ${row.evidenceType} and replaced_at is null
          returning id
        ),
        recorded as (
          insert into ${evidence} (id, tenant_id, case_id, evidence_type, content_type, file_size_bytes, original_file_name, sha256_hash, storage_key, encryption, data_key_id, sealed_data_key, uploaded_at)
          values (${row.id}::uuid, ${session.tenantId}::uuid, ${locked.id}::uuid, ${row.evidenceType}, ${row.contentType}, ${row.fileSizeBytes}::bigint, ${row.originalFileName}, ${row.sha256Hash}, ${row.storageKey},
                  ${row.sealing.encryption}, ${row.sealing.dataKeyId}, ${row.sealing.sealedDataKey}, ${at}::timestamptz)
          returning id
        )
        insert into ${auditLog} (tenant_id, actor, action, target, correlation_id, after, at)
        select ${session.tenantId}::uuid, ${actor.actor}, 'evidence.uploaded', ${`evidence:${row.id}`}, ${actor.correlationId},
               ${JSON.stringify(after)}::jsonb || jsonb_build_object('replaced', coalesce((select jsonb_agg(id) from replaced), '[]'::jsonb)), ${at}::timestamptz
        from recorded`);
    options.onBodyDone();
  });
}

/** A file name safe to store and show: no path, no control characters, bounded length. */
export function cleanFileName(name: string | undefined, fallback: string): string {
  const base = (name ?? '').split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const cleaned = base.replace(/[\u0000-\u001f\u007f"]/g, '').trim().slice(0, 255);
  return cleaned.length > 0 ? cleaned : fallback;
}

export interface EvidenceUpload {
  evidenceType: EvidenceType;
  fileName: string | undefined;
  stream: Readable;
  /** True when the multipart parser cut the file at its own (largest) limit. */
  wasTruncated: () => boolean;
  /** Aborted when the body cannot arrive whole (cut, stalled, shutdown), with the problem to answer. */
  signal: AbortSignal;
  /** Receives the plaintext's chunks as they pass (a quality hint reads the photo without opening the store again). */
  copy?: Buffer[];
}

/**
 * Receive one evidence file: spool (size-limited, hashed), sniff the real content type, announce
 * the object, store it under a key the client cannot influence, then record it in one
 * transaction that re-checks the case under its row lock and takes the announcement. A same-type
 * upload replaces the current one (kept, marked replaced).
 *
 * The object is deleted again only when the recording surely did not commit (it failed before
 * COMMIT was sent). When COMMIT itself failed (a session terminated, a connection lost) the
 * outcome is unknown: the row is looked for, and found, the upload succeeded; not found, the
 * object is left to the abandoned-upload sweep, which removes it only once no commit can take it
 * (see upload-intents.ts). Deleting it here could leave a committed row pointing at nothing.
 */
export async function receiveEvidence(
  db: IdentityExecutor,
  storage: EvidenceVault,
  session: CaptureSession,
  upload: EvidenceUpload,
  options: { limits: UploadLimits; correlationId: string; clock: () => Date; uploadGraceMs: number },
) {
  const maxBytes = maxBytesFor(upload.evidenceType, options.limits);
  const evidenceId = randomUUID();
  const { seal, sealing } = storage.createSealer(evidenceId);
  const spooled = await spool(upload.stream, storage, maxBytes, upload.evidenceType, seal, upload.signal, upload.copy);
  try {
    reachedCrashPoint('evidence-received');
    if (upload.wasTruncated()) throw new PayloadTooLargeError(`${upload.evidenceType} may be at most ${maxBytes} bytes.`);
    const sniffed = (await fileTypeFromBuffer(spooled.head))?.mime ?? null;
    if (!sniffed || !ACCEPTED_CONTENT[upload.evidenceType].types.includes(sniffed)) throw new UnsupportedEvidenceContentError(upload.evidenceType, sniffed);
    const storageKey = `${session.tenantId}/${session.caseId}/${evidenceId}`;
    await announceUpload(db, session.tenantId, storageKey);
    let recorded = false;
    let commitSent = false;
    const now = options.clock();
    const record = { id: evidenceId, evidenceType: upload.evidenceType, contentType: sniffed, fileSizeBytes: spooled.sizeBytes, originalFileName: cleanFileName(upload.fileName, `${upload.evidenceType}`), sha256Hash: spooled.sha256Hex, uploadedAt: now.toISOString() };
    try {
      await storage.storeSealed(storageKey, spooled.path, spooled.sealed);
      reachedCrashPoint('evidence-stored');
      await recordUpload(db, session, { ...record, storageKey, sealing, uploadedAt: now }, { correlationId: options.correlationId, uploadGraceMs: options.uploadGraceMs, onBodyDone: () => (commitSent = true) });
      recorded = true;
    } catch (error) {
      if (commitSent && (await wasRecorded(db, evidenceId))) recorded = true;
      else if (!commitSent) await discard(db, storage, storageKey);
      if (!recorded) throw error;
    }
    reachedCrashPoint('evidence-recorded');
    return record;
  } finally {
    await unlink(spooled.path).catch(() => undefined);
  }
}

/** Whether a transaction whose COMMIT failed did commit; any doubt (the database still away) reads as no. */
async function wasRecorded(db: IdentityExecutor, evidenceId: string): Promise<boolean> {
  try {
    return (await db.select({ id: evidence.id }).from(evidence).where(eq(evidence.id, evidenceId))).length === 1;
  } catch {
    return false;
  }
}

/** An object surely never recorded: removed now rather than at the next sweep (which does it if this fails). */
async function discard(db: IdentityExecutor, storage: EvidenceVault, storageKey: string): Promise<void> {
  try {
    await storage.delete(storageKey);
    await forgetUpload(db, storageKey);
  } catch {
    // Left to the abandoned-upload sweep.
  }
}
