// The identity API exactly as dist/server.js runs it, except that evidence is stored WITHOUT
// encryption: the reference side of bench/evidence-encryption.mjs, never a way to run the service.
// Nothing in the configuration can turn encryption off; this script injects (through buildApp's
// `evidenceVault` dependency, which only code can pass) a vault whose sealer hands the bytes on
// unchanged and records them as `encryption: 'none'`. Those records are read back through the same
// plaintext read path that serves the objects of versions before encryption at rest, so the
// bench compares the service's own upload and download paths with and without the cipher.
import { PassThrough } from 'node:stream';
import { runService } from '@svc/service-kit';
import { createEvidenceKeyRing } from '../dist/domain/evidence/evidence-keys.js';
import { createEvidenceStorage } from '../dist/domain/evidence/evidence-storage.js';
import { createEvidenceVault } from '../dist/domain/evidence/evidence-vault.js';
import { evidenceStorageConfig } from '../dist/domain/evidence/storage-config.js';
import { identityService } from '../dist/service-definition.js';

console.error('plaintext-evidence-server: a bench reference that stores evidence UNENCRYPTED; never run it with real data');

/** The encrypting vault over the same store, with its sealing replaced by a pass-through. */
async function plaintextVault(config, secretsKey) {
  const vault = createEvidenceVault(await createEvidenceStorage(evidenceStorageConfig(config)), createEvidenceKeyRing(config.EVIDENCE_KEYS, secretsKey));
  return {
    ...vault,
    createSealer: () => ({ seal: new PassThrough(), sealing: { encryption: 'none', dataKeyId: null, sealedDataKey: null } }),
    async store() {
      throw new Error('the plaintext bench server does not re-store objects');
    },
  };
}

await runService({
  ...identityService,
  buildApp: async (dependencies) => identityService.buildApp({ ...dependencies, evidenceVault: await plaintextVault(dependencies.config, dependencies.secretsKey) }),
});
