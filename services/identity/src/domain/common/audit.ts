import { auditLog, type IdentityExecutor } from '../../db/schema.js';

export interface AuditEntry {
  tenantId: string | null;
  actor: string;
  action: string;
  target?: string | null;
  correlationId?: string | null;
  before?: unknown;
  after?: unknown;
}

/** Written inside the transaction of the change it records, so neither exists without the other. */
export async function writeAudit(executor: IdentityExecutor, entry: AuditEntry, at: Date): Promise<void> {
  await executor.insert(auditLog).values({
    tenantId: entry.tenantId,
    actor: entry.actor,
    action: entry.action,
    target: entry.target ?? null,
    correlationId: entry.correlationId ?? null,
    before: entry.before ?? null,
    after: entry.after ?? null,
    at,
  });
}
