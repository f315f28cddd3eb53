import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { NotFoundError, UnauthenticatedError, ValidationError } from '@svc/problem-json';
import { count, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { apiClients, rateAlerts } from '../../db/schema.js';
import type { FxExecutor } from '../../db/executor.js';

export const PLAN_NAMES = ['Free', 'Starter', 'Professional', 'Enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];
export type ApiClient = typeof apiClients.$inferSelect;

export const PUBLIC_KEY_PREFIX = 'svc_pub_';
export const PRIVATE_KEY_PREFIX = 'svc_prv_';
const PUBLIC_KEY_SHAPE = /^svc_pub_[0-9a-f]{48}$/;
const PRIVATE_KEY_SHAPE = /^svc_prv_[0-9a-f]{64}$/;

export const planSchema = z.enum(PLAN_NAMES, { error: `must be one of ${PLAN_NAMES.join(', ')}` });
/** A contact address, at most 254 characters (RFC 5321's path limit). */
export const clientEmailSchema = z.email({ error: 'must be an email address' }).max(254, 'must be at most 254 characters');
export const clientNameSchema = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

const hashPrivateKey = (privateKey: string) => createHash('sha256').update(privateKey, 'utf8').digest();

/** One field against its schema, as a 400 problem naming the field. */
export function parseField<T>(schema: z.ZodType<T>, value: unknown, field: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const message = result.error.issues[0]?.message ?? 'is invalid';
  throw new ValidationError(`${field} ${message}`, [{ path: field, message }]);
}

/** Keys in lowercase hex: characters a user can paste anywhere. The private key is returned here only. */
export async function createApiClient(tx: FxExecutor, input: { name: string; plan: string; email?: string | undefined }, now: Date): Promise<{ id: string; publicKey: string; privateKey: string }> {
  const name = parseField(clientNameSchema, input.name, 'name');
  const plan = parseField(planSchema, input.plan, 'plan');
  const email = input.email === undefined ? null : parseField(clientEmailSchema, input.email.trim(), 'email');
  const publicKey = `${PUBLIC_KEY_PREFIX}${randomBytes(24).toString('hex')}`;
  const privateKey = `${PRIVATE_KEY_PREFIX}${randomBytes(32).toString('hex')}`;
  const [row] = await tx
    .insert(apiClients)
    .values({ name, plan, email, publicKey, privateKeyHash: hashPrivateKey(privateKey).toString('hex'), createdUtc: now })
    .returning({ id: apiClients.id });
  if (!row) throw new Error('client insert returned no row');
  return { id: row.id, publicKey, privateKey };
}

async function updateClient(tx: FxExecutor, id: string, values: Partial<typeof apiClients.$inferInsert>): Promise<ApiClient> {
  const clientId = parseField(z.uuid({ error: 'must be a UUID' }), id, 'id');
  const [row] = await tx.update(apiClients).set(values).where(eq(apiClients.id, clientId)).returning();
  if (!row) throw new NotFoundError(`No API client with id ${clientId}.`);
  return row;
}

/**
 * A new private key; the public key stays. Without a grace the old key stops working at once (the
 * operator's rotation, for a key that leaked); with one it keeps working until then, so a deployment
 * can switch over. Only the key just replaced is kept: a second rotation within the grace ends the first old key at once.
 */
export async function rotateClientSecret(tx: FxExecutor, id: string, grace?: { seconds: number; now: Date }): Promise<{ id: string; publicKey: string; privateKey: string; previousKeyExpiresUtc: string | null }> {
  const privateKey = `${PRIVATE_KEY_PREFIX}${randomBytes(32).toString('hex')}`;
  const clientId = parseField(z.uuid({ error: 'must be a UUID' }), id, 'id');
  const expires = grace && grace.seconds > 0 ? new Date(grace.now.getTime() + grace.seconds * 1000) : null;
  const [row] = await tx
    .update(apiClients)
    .set({
      privateKeyHash: hashPrivateKey(privateKey).toString('hex'),
      // The update's right-hand side reads the row as it was: the hash being replaced.
      previousPrivateKeyHash: expires ? sql`${apiClients.privateKeyHash}` : null,
      previousKeyExpiresUtc: expires,
    })
    .where(eq(apiClients.id, clientId))
    .returning();
  if (!row) throw new NotFoundError(`No API client with id ${clientId}.`);
  return { id: row.id, publicKey: row.publicKey, privateKey, previousKeyExpiresUtc: expires?.toISOString() ?? null };
}

export async function deactivateClient(tx: FxExecutor, id: string) {
  return toAdminView(await updateClient(tx, id, { isActive: false }));
}

export async function setClientPlan(tx: FxExecutor, id: string, plan: string) {
  return toAdminView(await updateClient(tx, id, { plan: parseField(planSchema, plan, 'plan') }));
}

/** A new contact address, or null to remove it. */
export async function setClientEmail(tx: FxExecutor, id: string, email: string | null) {
  return toAdminView(await updateClient(tx, id, { email: email === null ? null : parseField(clientEmailSchema, email.trim(), 'email') }));
}

export function toAdminView(row: ApiClient) {
  return { id: row.id, name: row.name, plan: row.plan, email: row.email, publicKey: row.publicKey, isActive: row.isActive, createdUtc: row.createdUtc.toISOString(), lastUsedUtc: row.lastUsedUtc?.toISOString() ?? null };
}

/** The spec's client profile; webhookCount is counted live, and this request is the latest use. */
export async function clientProfile(tx: FxExecutor, client: ApiClient, now: Date) {
  const [webhooks] = await tx.select({ n: count() }).from(rateAlerts).where(eq(rateAlerts.clientId, client.id));
  return {
    id: client.id,
    name: client.name,
    publicKey: client.publicKey,
    isActive: client.isActive,
    createdUtc: client.createdUtc.toISOString(),
    lastUsedUtc: now.toISOString(),
    webhookCount: webhooks?.n ?? 0,
  };
}

export const INVALID_API_KEY = 'Missing or invalid API key: send X-Api-Key (svc_pub_…) and X-Api-Secret (svc_prv_…) of an active client.';

/**
 * One message for every failure (missing header, unknown key, wrong secret, inactive client, old key
 * past its grace), so a caller cannot tell which half was wrong. The secret is compared as a SHA-256
 * digest in constant time against the current and the previous hash alike, both every time: neither
 * the outcome nor the time says which one matched. An unknown key still costs the same.
 */
export async function authenticateApiKey(tx: FxExecutor, publicKey: string | undefined, privateKey: string | undefined, now: Date): Promise<ApiClient> {
  if (!publicKey || !privateKey || !PUBLIC_KEY_SHAPE.test(publicKey) || !PRIVATE_KEY_SHAPE.test(privateKey)) throw new UnauthenticatedError(INVALID_API_KEY);
  const [row] = await tx.select().from(apiClients).where(eq(apiClients.publicKey, publicKey));
  const presented = hashPrivateKey(privateKey);
  const current = timingSafeEqual(presented, storedDigest(row?.privateKeyHash));
  const previous = timingSafeEqual(presented, storedDigest(row?.previousPrivateKeyHash));
  const previousValid = row?.previousKeyExpiresUtc ? row.previousKeyExpiresUtc.getTime() > now.getTime() : false;
  // Bitwise, not ||: both comparisons above always ran, and nothing here branches on which matched.
  const matches = (Number(current) | (Number(previous) & Number(previousValid))) === 1;
  if (!row || !matches || !row.isActive) throw new UnauthenticatedError(INVALID_API_KEY);
  return row;
}

/** A stored SHA-256 as 32 bytes; a missing one is a digest no key hashes to in practice (all zero). */
function storedDigest(hex: string | null | undefined): Buffer {
  const digest = hex ? Buffer.from(hex, 'hex') : Buffer.alloc(32);
  return digest.length === 32 ? digest : Buffer.alloc(32);
}
