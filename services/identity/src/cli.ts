import { runServiceCli, type CliCommand, type CliFlags } from '@svc/service-kit';
import { loadIdentityConfig } from './config.js';
import { queueDepth } from '@svc/outbox';
import { jobs, type IdentityExecutor } from './db/schema.js';
import { expireDueCases } from './domain/cases/expire-cases.js';
import { createStaffUser } from './domain/accounts/staff.js';
import type { EvidenceVault } from './domain/evidence/evidence-vault.js';
import { createPortalUser, createTenant, setTenantStatus, updateTenantSettings } from './domain/tenants/tenants.js';
import { identityRuntime } from './service-runtime.js';

const HELP = `usage: pnpm --filter @svc/identity cli <command> [flags]

commands:
  tenant:create --name <name> --admin-email <email> --admin-password <password> [--sandbox]
                                   create a tenant and its first PartnerAdmin -> {"tenantId","adminUserId","sandbox"}
                                   --sandbox: its cases are decided by the built-in simulator (outcome from the
                                   externalReference suffix #approve, #reject, #review, #fail, #expire)
  tenant:disable --id <tenantId>   every user, client and token of the tenant gets 403 ACCOUNT_DISABLED
  tenant:enable --id <tenantId>    undo tenant:disable
  tenant:update --id <tenantId> [--evidence-retention-days <1-3650>] [--require-second-factor true|false]
                                   days a decided case keeps its evidence before it is redacted (default 90)
  user:create --tenant <tenantId> --email <email> --password <password> --role PartnerAdmin|PartnerReadOnly
                                   add a portal user -> {"userId"}; PartnerReadOnly (support staff) reads
                                   everything in the portal and changes nothing
  staff:create --email <email> --password <password> [--role Reviewer|ReviewLead]
                                   an operator for the reviewers' console at /console -> {"staffId","role"};
                                   Reviewer (default) decides cases; ReviewLead also sees everyone's history
                                   and can release anyone's claim
  jobs:status                      queued, running and failed background jobs by kind -> {"jobs":[…]}
  cases:expire                     run one expiry sweep now (CASE_TTL_SECONDS, session expiry) -> {"expired"}
  retention:sweep                  hand cases past their retention to redaction now, delete audit entries past
                                   AUDIT_RETENTION_DAYS -> {"requested","requeued","auditEntriesDeleted"}
  evidence:rekey                   re-seal every data key under the first key of EVIDENCE_KEYS (objects untouched;
                                   resumable, progress on stderr) -> {"rekeyed","keyId"}
  evidence:encrypt-existing        encrypt objects stored in plaintext by earlier versions (resumable, progress on
                                   stderr) -> {"encrypted"}

Prints one JSON object on stdout; on error one line on stderr and exit code 1.
Uses DATABASE_URL, or the embedded database in DATA_DIR (stop the service first: it holds that database).`;

interface Context {
  db: IdentityExecutor;
  /** The evidence store with its key ring, opened only by the commands that need it. */
  vault: () => Promise<EvidenceVault>;
}

/** Progress of a long maintenance run on stderr (stdout keeps its one JSON object). */
const progressOnStderr = (label: string) => (progress: { done: number; total: number }) => process.stderr.write(`${label}: ${progress.done}/${progress.total}\n`);
const text = (flags: CliFlags, name: string) => String(flags[name]);
const optionalText = (flags: CliFlags, name: string) => (flags[name] === undefined ? undefined : String(flags[name]));
const stringFlags = (...names: string[]) => Object.fromEntries(names.map((name) => [name, 'string' as const]));

const COMMANDS: Record<string, CliCommand<Context>> = {
  'tenant:create': {
    flags: { ...stringFlags('name', 'admin-email', 'admin-password'), sandbox: 'boolean' },
    required: ['name', 'admin-email', 'admin-password'],
    run: ({ db }, flags) =>
      db.transaction((tx) =>
        createTenant(
          tx,
          { name: text(flags, 'name'), adminEmail: text(flags, 'admin-email'), adminPassword: text(flags, 'admin-password'), sandbox: flags.sandbox === true },
          new Date(),
        ),
      ),
  },
  'tenant:update': {
    flags: stringFlags('id', 'evidence-retention-days', 'require-second-factor'),
    required: ['id'],
    run: ({ db }, flags) =>
      db.transaction((tx) =>
        updateTenantSettings(tx, text(flags, 'id'), { evidenceRetentionDays: optionalText(flags, 'evidence-retention-days'), requireSecondFactor: optionalText(flags, 'require-second-factor') }, new Date()),
      ),
  },
  'tenant:disable': { flags: stringFlags('id'), required: ['id'], run: ({ db }, flags) => db.transaction((tx) => setTenantStatus(tx, text(flags, 'id'), 'disabled', new Date())) },
  'tenant:enable': { flags: stringFlags('id'), required: ['id'], run: ({ db }, flags) => db.transaction((tx) => setTenantStatus(tx, text(flags, 'id'), 'active', new Date())) },
  'user:create': {
    flags: stringFlags('tenant', 'email', 'password', 'role'),
    required: ['tenant', 'email', 'password', 'role'],
    run: ({ db }, flags) =>
      db.transaction((tx) => createPortalUser(tx, { tenantId: text(flags, 'tenant'), email: text(flags, 'email'), password: text(flags, 'password'), role: text(flags, 'role') }, new Date())),
  },
  'staff:create': {
    flags: stringFlags('email', 'password', 'role'),
    required: ['email', 'password'],
    run: ({ db }, flags) =>
      db.transaction((tx) => createStaffUser(tx, { email: text(flags, 'email'), password: text(flags, 'password'), role: flags.role === undefined ? undefined : text(flags, 'role') }, new Date())),
  },
  'jobs:status': { flags: {}, required: [], run: async ({ db }) => ({ jobs: await queueDepth(db, jobs) }) },
  'cases:expire': {
    flags: {},
    required: [],
    run: async ({ db }) => ({ expired: await expireDueCases(db, { now: new Date(), caseTtlSeconds: loadIdentityConfig(process.env).CASE_TTL_SECONDS }) }),
  },
  // The evidence and retention modules load only for their commands: every other command starts as fast as before.
  'evidence:rekey': {
    flags: {},
    required: [],
    run: async ({ db, vault }) => (await import('./domain/evidence/evidence-maintenance.js')).rekeyEvidence(db, await vault(), progressOnStderr('rekeyed')),
  },
  'evidence:encrypt-existing': {
    flags: {},
    required: [],
    run: async ({ db, vault }) => (await import('./domain/evidence/evidence-maintenance.js')).encryptExistingEvidence(db, await vault(), progressOnStderr('encrypted')),
  },
  'retention:sweep': {
    flags: {},
    required: [],
    run: async ({ db }) => {
      const config = loadIdentityConfig(process.env);
      const { sweepRetention } = await import('./domain/redaction/retention-sweep.js');
      return sweepRetention(db, { now: new Date(), undecidedRetentionDays: config.UNDECIDED_RETENTION_DAYS, auditRetentionDays: config.AUDIT_RETENTION_DAYS, batchSize: config.RETENTION_SWEEP_BATCH });
    },
  },
};

await runServiceCli({
  ...identityRuntime,
  name: 'identity cli',
  help: HELP,
  commands: COMMANDS,
  context: ({ database, config, secretsKey }) => ({
    db: database.db,
    vault: async () => {
      const [{ createEvidenceVault }, { createEvidenceStorage, evidenceStorageConfig }, { createEvidenceKeyRing }] = await Promise.all([
        import('./domain/evidence/evidence-vault.js'),
        import('./domain/evidence/storage-config.js'),
        import('./domain/evidence/evidence-keys.js'),
      ]);
      return createEvidenceVault(await createEvidenceStorage(evidenceStorageConfig(config)), createEvidenceKeyRing(config.EVIDENCE_KEYS, secretsKey));
    },
  }),
});
