import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { and, asc, count, eq, gt, isNotNull, ne } from 'drizzle-orm';
import { evidence, type IdentityExecutor } from '../../db/schema.js';
import type { EvidenceVault } from './evidence-vault.js';

/** Reported after each batch, so an operator sees a long run move (and where a resumed run starts). */
export type MaintenanceProgress = (progress: { done: number; total: number }) => void;

const BATCH = 100;

/**
 * Re-seals every data key not yet under the current key-encryption key (the first of
 * EVIDENCE_KEYS). Objects are not touched: only the small sealed key on each row changes.
 * Resumable: a row already under the current key is skipped, so a stopped run simply starts
 * again; each row is updated only if nobody changed its key meanwhile.
 */
export async function rekeyEvidence(db: IdentityExecutor, vault: EvidenceVault, onProgress: MaintenanceProgress = () => undefined): Promise<{ rekeyed: number; keyId: string }> {
  const currentKeyId = vault.keyRing.currentKeyId;
  const pending = and(isNotNull(evidence.sealedDataKey), ne(evidence.dataKeyId, currentKeyId));
  const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(evidence).where(pending);
  let rekeyed = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = await db
      .select({ id: evidence.id, dataKeyId: evidence.dataKeyId, sealedDataKey: evidence.sealedDataKey })
      .from(evidence)
      .where(and(pending, gt(evidence.id, after)))
      .orderBy(asc(evidence.id))
      .limit(BATCH);
    if (rows.length === 0) break;
    for (const row of rows) {
      const resealed = vault.keyRing.reseal({ keyId: row.dataKeyId!, sealed: row.sealedDataKey! }, row.id);
      // Conditional on the old sealed key: a redaction that destroyed it meanwhile is not undone.
      const updated = await db
        .update(evidence)
        .set({ dataKeyId: resealed.keyId, sealedDataKey: resealed.sealed })
        .where(and(eq(evidence.id, row.id), eq(evidence.sealedDataKey, row.sealedDataKey!)))
        .returning({ id: evidence.id });
      rekeyed += updated.length;
    }
    after = rows[rows.length - 1]!.id;
    onProgress({ done: rekeyed, total });
  }
  return { rekeyed, keyId: currentKeyId };
}

/**
 * Encrypts objects stored in plaintext by versions before encryption at rest. Each is copied
 * to a new key as ciphertext, the row is switched to it in one conditional update, then the
 * plaintext object is deleted; a crash leaves at worst an orphaned ciphertext copy, never a row
 * pointing at nothing. Resumable: only rows still marked 'none' are taken.
 */
export async function encryptExistingEvidence(db: IdentityExecutor, vault: EvidenceVault, onProgress: MaintenanceProgress = () => undefined): Promise<{ encrypted: number }> {
  const pending = eq(evidence.encryption, 'none');
  const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(evidence).where(pending);
  let encrypted = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = await db.select().from(evidence).where(and(pending, gt(evidence.id, after))).orderBy(asc(evidence.id)).limit(BATCH);
    if (rows.length === 0) break;
    for (const row of rows) {
      const plaintextPath = join(vault.spoolDir, `${randomUUID()}.plain`);
      const newKey = `${row.tenantId}/${row.caseId}/${randomUUID()}`;
      try {
        const stored = await vault.storage.get(row.storageKey);
        await pipeline(stored.body, createWriteStream(plaintextPath, { mode: 0o600 }));
        const sealing = await vault.store(row.id, newKey, plaintextPath, { contentType: row.contentType });
        const updated = await db
          .update(evidence)
          .set({ storageKey: newKey, ...sealing })
          .where(and(eq(evidence.id, row.id), eq(evidence.encryption, 'none'), eq(evidence.storageKey, row.storageKey)))
          .returning({ id: evidence.id });
        if (updated.length === 0) {
          await vault.delete(newKey);
          continue;
        }
        await vault.delete(row.storageKey);
        encrypted += 1;
      } finally {
        await unlink(plaintextPath).catch(() => undefined);
      }
    }
    after = rows[rows.length - 1]!.id;
    onProgress({ done: encrypted, total });
  }
  return { encrypted };
}
