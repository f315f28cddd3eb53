import { ConflictError, ForbiddenError, NotFoundError } from '@svc/problem-json';
import { and, asc, count, eq } from 'drizzle-orm';
import type { FxExecutor } from '../../db/executor.js';
import { apiClients, developerAccounts } from '../../db/schema.js';
import { createApiClient, rotateClientSecret, type ApiClient, type PlanName } from '../clients/api-clients.js';
import type { FxMailer } from '../mail/fx-mailer.js';
import type { DeveloperAccount } from './developer-accounts.js';

/** Clients an account may hold, by its plan. */
export const CLIENTS_PER_PLAN: Record<PlanName, number> = { Free: 1, Starter: 3, Professional: 10, Enterprise: 25 };

/** The account's clients, oldest first; the private key is never read back. */
export async function listDeveloperClients(db: FxExecutor, accountId: string) {
  const rows = await db.select().from(apiClients).where(eq(apiClients.accountId, accountId)).orderBy(asc(apiClients.createdUtc), asc(apiClients.id));
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    plan: row.plan,
    publicKey: row.publicKey,
    isActive: row.isActive,
    createdUtc: row.createdUtc.toISOString(),
    lastUsedUtc: row.lastUsedUtc?.toISOString() ?? null,
  }));
}

/**
 * A client of the account, on the account's plan, with the account's address and language for its
 * notices: the same client the CLI makes (keys, quota, limits, alerts). The private key is returned here only.
 */
export async function createDeveloperClient(tx: FxExecutor, account: DeveloperAccount, name: string, now: Date) {
  if (!account.emailVerifiedUtc) throw new ForbiddenError('Confirm your address first: keys are issued to verified accounts only.');
  // The account row is locked so that two concurrent creations cannot both pass the limit.
  await tx.select({ id: developerAccounts.id }).from(developerAccounts).where(eq(developerAccounts.id, account.id)).for('update');
  const [held] = await tx.select({ n: count() }).from(apiClients).where(eq(apiClients.accountId, account.id));
  const limit = CLIENTS_PER_PLAN[account.plan];
  if ((held?.n ?? 0) >= limit) throw new ForbiddenError(`The ${account.plan} plan allows ${limit} API client${limit === 1 ? '' : 's'}; ask the operator for a larger plan.`);
  const keys = await createApiClient(tx, { name, plan: account.plan, email: account.email }, now);
  await tx.update(apiClients).set({ accountId: account.id, language: account.language }).where(eq(apiClients.id, keys.id));
  return { ...keys, name: name.trim(), plan: account.plan };
}

/** Renames or deactivates one of the account's own clients; another account's client is 404, as if it did not exist. */
export async function updateDeveloperClient(db: FxExecutor, accountId: string, clientId: string, change: { name?: string; isActive?: false }) {
  const values = { ...(change.name !== undefined ? { name: change.name.trim() } : {}), ...(change.isActive === false ? { isActive: false } : {}) };
  const [row] = Object.keys(values).length
    ? await db.update(apiClients).set(values).where(and(eq(apiClients.id, clientId), eq(apiClients.accountId, accountId))).returning({ id: apiClients.id })
    : await db.select({ id: apiClients.id }).from(apiClients).where(and(eq(apiClients.id, clientId), eq(apiClients.accountId, accountId)));
  if (!row) throw new NotFoundError(`No API client with id ${clientId} on this account.`);
  return (await listDeveloperClients(db, accountId)).find((client) => client.id === row.id) as Awaited<ReturnType<typeof listDeveloperClients>>[number];
}

/** One of the account's clients; another account's, or none, is the same 404, so ids of others cannot be probed. */
export async function ownClient(db: FxExecutor, accountId: string, clientId: string, lock = false): Promise<ApiClient> {
  const query = db.select().from(apiClients).where(and(eq(apiClients.id, clientId), eq(apiClients.accountId, accountId)));
  const [row] = lock ? await query.for('update') : await query;
  if (!row) throw new NotFoundError(`No API client with id ${clientId} on this account.`);
  return row;
}

/**
 * A new private key for one of the account's clients, shown once; the replaced key keeps working for
 * `graceSeconds`. The account is mailed in the same transaction, so the notice goes out exactly when
 * the rotation commits, and in the account's language.
 */
export async function rotateDeveloperClientKey(tx: FxExecutor, mailer: FxMailer, account: DeveloperAccount, clientId: string, options: { graceSeconds: number; now: Date }) {
  const client = await ownClient(tx, account.id, clientId, true);
  // Deactivation is for good: a new key for a dead client would be a key that can never work.
  if (!client.isActive) throw new ConflictError('This client is deactivated: its keys cannot be rotated. Create a new client instead.');
  const rotated = await rotateClientSecret(tx, client.id, { seconds: options.graceSeconds, now: options.now });
  await mailer.enqueue(
    tx,
    { to: account.email, language: account.language, template: 'key-rotated', data: { clientName: client.name, publicKey: client.publicKey, oldKeyValidUntil: rotated.previousKeyExpiresUtc }, subjectId: client.id },
    options.now,
  );
  return rotated;
}
