import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { resolveDataDir } from '@svc/db';
import { PRIVATE_DIRECTORY_MODE, type EvidenceStorage, type EvidenceStorageConfig } from './evidence-storage.js';

/** The settings the store is chosen by: a slice of the parsed config, so the domain never imports config.ts. */
export interface EvidenceStorageSettings {
  DATA_DIR?: string | undefined;
  EVIDENCE_DIR?: string | undefined;
  EVIDENCE_S3_BUCKET?: string | undefined;
  EVIDENCE_S3_ENDPOINT?: string | undefined;
  EVIDENCE_S3_REGION: string;
  EVIDENCE_S3_FORCE_PATH_STYLE: boolean;
}

/** S3 when a bucket is configured (several instances share it), else a local directory. */
export function evidenceStorageConfig(config: EvidenceStorageSettings): EvidenceStorageConfig {
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

/**
 * The implementations are imported on demand so a service on the file system store never
 * loads the AWS SDK (it is large and slows every start-up). This lives here, not beside the
 * interface, so the implementations import the interface file without it importing them back.
 */
export async function createEvidenceStorage(config: EvidenceStorageConfig): Promise<EvidenceStorage> {
  switch (config.kind) {
    case 'filesystem': {
      const { FilesystemEvidenceStorage } = await import('./filesystem-storage.js');
      return FilesystemEvidenceStorage.open(config.dir);
    }
    case 's3': {
      const { S3EvidenceStorage } = await import('./s3-storage.js');
      await mkdir(config.spoolDir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
      return new S3EvidenceStorage(config);
    }
  }
}
