import { eq } from 'drizzle-orm';
import { ConflictError, NotFoundError, ValidationError } from '@svc/problem-json';
import { z } from 'zod';
import { portalUsers, tenants, type IdentityExecutor } from '../../db/schema.js';
import { announceCredentialsChanged } from '../common/credential-cache.js';
import { writeAudit } from '../common/audit.js';
import { hashPassword, newPasswordSchema } from '@svc/accounts';

/** PartnerAdmin manages clients, cases and webhooks; PartnerReadOnly (support staff) reads everything and changes nothing. */
export const PORTAL_ROLES = ['PartnerAdmin', 'PartnerReadOnly'] as const;
export type PortalRole = (typeof PORTAL_ROLES)[number];

export const emailSchema = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email({ error: 'must be an email address' }))
  .transform((email) => email.toLowerCase());
const tenantNameSchema = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
const uuidSchema = z.uuid({ error: 'must be a UUID' });

function parse<T>(schema: z.ZodType<T>, value: unknown, field: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const message = result.error.issues[0]?.message ?? 'is invalid';
  throw new ValidationError(`--${field} ${message}`);
}

export async function createPortalUser(
  tx: IdentityExecutor,
  input: { tenantId: string; email: string; password: string; role: string },
  now: Date,
): Promise<{ userId: string }> {
  const email = parse(emailSchema, input.email, 'email');
  const password = parse(newPasswordSchema, input.password, 'password');
  const role = parse(z.enum(PORTAL_ROLES, { error: `must be one of ${PORTAL_ROLES.join(', ')}` }), input.role, 'role');
  const tenantId = parse(uuidSchema, input.tenantId, 'tenant');
  const [tenant] = await tx.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, tenantId));
  if (!tenant) throw new NotFoundError(`No tenant with id ${tenantId}.`);
  const passwordHash = await hashPassword(password);
  const [user] = await tx.insert(portalUsers).values({ tenantId, email, role, passwordHash, createdAt: now }).onConflictDoNothing().returning({ id: portalUsers.id });
  if (!user) throw new ConflictError(`A portal user with email ${email} already exists.`);
  await writeAudit(tx, { tenantId, actor: 'cli', action: 'user.created', target: `user:${user.id}`, after: { email, role } }, now);
  return { userId: user.id };
}

export async function createTenant(
  tx: IdentityExecutor,
  input: { name: string; adminEmail: string; adminPassword: string; sandbox?: boolean },
  now: Date,
): Promise<{ tenantId: string; adminUserId: string; sandbox: boolean }> {
  const name = parse(tenantNameSchema, input.name, 'name');
  // Validate the admin before writing anything, so a bad flag leaves no tenant behind.
  parse(emailSchema, input.adminEmail, 'admin-email');
  parse(newPasswordSchema, input.adminPassword, 'admin-password');
  const sandbox = input.sandbox ?? false;
  const [tenant] = await tx.insert(tenants).values({ name, sandbox, createdAt: now, updatedAt: now }).returning({ id: tenants.id });
  if (!tenant) throw new Error('tenant insert returned no row');
  await writeAudit(tx, { tenantId: tenant.id, actor: 'cli', action: 'tenant.created', target: `tenant:${tenant.id}`, after: { name, sandbox } }, now);
  const { userId } = await createPortalUser(tx, { tenantId: tenant.id, email: input.adminEmail, password: input.adminPassword, role: 'PartnerAdmin' }, now);
  return { tenantId: tenant.id, adminUserId: userId, sandbox };
}

export async function setTenantStatus(tx: IdentityExecutor, tenantId: string, status: 'active' | 'disabled', now: Date): Promise<{ tenantId: string; status: string }> {
  const id = parse(uuidSchema, tenantId, 'id');
  const [before] = await tx.select({ status: tenants.status }).from(tenants).where(eq(tenants.id, id)).for('update');
  if (!before) throw new NotFoundError(`No tenant with id ${id}.`);
  await tx.update(tenants).set({ status, updatedAt: now }).where(eq(tenants.id, id));
  await announceCredentialsChanged(tx);
  await writeAudit(tx, { tenantId: id, actor: 'cli', action: status === 'active' ? 'tenant.enabled' : 'tenant.disabled', target: `tenant:${id}`, before, after: { status } }, now);
  return { tenantId: id, status };
}

/** Up to ten years: long enough for any regulator we know of, short enough that a typo (36500) is caught. */
export const evidenceRetentionDaysSchema = z.coerce.number({ error: 'must be a whole number of days' }).int('must be a whole number of days').min(1, 'must be at least 1 day').max(3650, 'must be at most 3650 days (10 years)');

/** `tenant:update`: the tenant's settings that are not credentials (evidence retention, whether its users need a second factor). */
export async function updateTenantSettings(
  tx: IdentityExecutor,
  tenantId: string,
  settings: { evidenceRetentionDays?: string | undefined; requireSecondFactor?: string | undefined },
  now: Date,
  actor = 'cli',
): Promise<{ tenantId: string; evidenceRetentionDays: number; requireSecondFactor: boolean }> {
  const id = parse(uuidSchema, tenantId, 'id');
  const changes: { evidenceRetentionDays?: number; requireSecondFactor?: boolean } = {};
  if (settings.evidenceRetentionDays !== undefined) changes.evidenceRetentionDays = parse(evidenceRetentionDaysSchema, settings.evidenceRetentionDays, 'evidence-retention-days');
  if (settings.requireSecondFactor !== undefined) changes.requireSecondFactor = parse(z.enum(['true', 'false'], { error: 'must be true or false' }), settings.requireSecondFactor, 'require-second-factor') === 'true';
  if (Object.keys(changes).length === 0) throw new ValidationError('Give at least one setting: --evidence-retention-days or --require-second-factor.');
  const [before] = await tx
    .select({ evidenceRetentionDays: tenants.evidenceRetentionDays, requireSecondFactor: tenants.requireSecondFactor })
    .from(tenants)
    .where(eq(tenants.id, id))
    .for('update');
  if (!before) throw new NotFoundError(`No tenant with id ${id}.`);
  await tx.update(tenants).set({ ...changes, updatedAt: now }).where(eq(tenants.id, id));
  await writeAudit(tx, { tenantId: id, actor, action: 'tenant.updated', target: `tenant:${id}`, before, after: changes }, now);
  return { tenantId: id, ...before, ...changes };
}
