import { join, resolve } from 'node:path';
import { resolveDataDir } from '@svc/db';
import type { IdentityConfig } from '../../config.js';
import type { EvidenceStorageConfig } from './evidence-storage.js';

/** S3 when a bucket is configured (several instances share it), else a local directory. */
export function evidenceStorageConfig(config: IdentityConfig): EvidenceStorageConfig {
  const serviceDir = join(resolveDataDir(config.DATA_DIR), 'identity');
  if (config.EVIDENCE_S3_BUCKET) {
    return {
      kind: 's3',
      bucket: config.EVIDENCE_S3_BUCKET,
      region: config.EVIDENCE_S3_REGION,
      forcePathStyle: config.EVIDENCE_S3_FORCE_PATH_STYLE,
      spoolDir: join(serviceDir, 'spool'),
      ...(config.EVIDENCE_S3_ENDPOINT ? { endpoint: config.EVIDENCE_S3_ENDPOINT } : {}),
    };
  }
  return { kind: 'filesystem', dir: config.EVIDENCE_DIR ? resolve(config.EVIDENCE_DIR) : join(serviceDir, 'evidence') };
}
