import { randomUUID } from 'node:crypto';
import { NotFoundError, ProblemError } from '@svc/problem-json';
import { and, eq } from 'drizzle-orm';
import { caseEvents, verificationCases, type IdentityExecutor } from '../../db/schema.js';
import { writeAudit } from '../common/audit.js';
import type { CaseActor } from '../common/actor.js';
import { fanOutEvent } from '../webhooks/fan-out.js';
import { eventTypeFor, isTerminal, nextStatus, type CaseStatus, type CaseTrigger } from './case-states.js';

export type CaseRow = typeof verificationCases.$inferSelect;

/**
 * A trigger that is not allowed from the case's state. 400 from a terminal state (the spec's
 * "cancelling a terminal case returns 400"); 409 from an open state that may still move on
 * (e.g. cancel while checks run: the same request can succeed once the case waits for review).
 */
export class InvalidCaseStateError extends ProblemError {
  /** `conflictEvenIfClosed`: callers whose contract is 409 for every other state (manual review, capture). */
  constructor(caseId: string, status: CaseStatus, action: string, options: { conflictEvenIfClosed?: boolean } = {}) {
    const terminal = isTerminal(status);
    super({
      status: terminal && !options.conflictEvenIfClosed ? 400 : 409,
      code: 'INVALID_CASE_STATE',
      title: terminal && !options.conflictEvenIfClosed ? 'Case Is Closed' : 'Invalid Case State',
      detail: `Case ${caseId} is ${status}${terminal ? ' (a terminal state)' : ''}; it cannot ${action} now.`,
      extensions: { caseId, currentStatus: status },
    });
  }
}

/**
 * Locks the case row for the rest of the transaction. Every change to a case starts here, so
 * concurrent commands on one case run one after the other and each sees the state the
 * previous one left (a cancel racing a submit ends in exactly one of the two outcomes).
 * `tenantId` null: internal callers (worker) that found the case by id.
 */
export async function lockCase(tx: IdentityExecutor, caseId: string, tenantId: string | null): Promise<CaseRow> {
  const condition = tenantId === null ? eq(verificationCases.id, caseId) : and(eq(verificationCases.id, caseId), eq(verificationCases.tenantId, tenantId));
  const [row] = await tx.select().from(verificationCases).where(condition).for('update');
  if (!row) throw new NotFoundError(`No verification case with id ${caseId}.`);
  return row;
}

export interface CaseEventPayload {
  eventType: string;
  eventId: string;
  timestamp: string;
  apiVersion: 'v1';
  tenantId: string;
  /** Beyond the spec's table (like Stripe's livemode): true for a sandbox tenant's simulated case. */
  sandbox: boolean;
  data: {
    caseId: string;
    externalReference: string | null;
    status: string;
    documentType: string;
    compositeRiskScore: number | null;
    decisionReason: string | null;
    completedAt: string | null;
  };
}

/**
 * The event of a state's arrival (or `eventType`, for events that are not a state: redaction), its payload frozen now (the spec's Payload table): logged in
 * case_events and fanned out to the tenant's subscribed endpoints in the caller's transaction.
 */
export async function recordCaseEvent(tx: IdentityExecutor, row: CaseRow, now: Date, eventType: string = eventTypeFor(row.status as CaseStatus)): Promise<CaseEventPayload> {
  const id = randomUUID();
  const payload = caseEventPayload(row, { id, eventType, now });
  const body = JSON.stringify(payload);
  await fanOutEvent(tx, { tenantId: row.tenantId, eventType: payload.eventType, caseId: row.id, payload: body }, now);
  await tx.insert(caseEvents).values({ id, tenantId: row.tenantId, caseId: row.id, eventType: payload.eventType, payload: body, occurredAt: now });
  return payload;
}

/** The payload of one case event (`evt_` + the case_events row's id), as every endpoint receives it. */
export function caseEventPayload(
  row: Pick<CaseRow, 'id' | 'tenantId' | 'sandbox' | 'externalReference' | 'status' | 'documentType' | 'compositeRiskScore' | 'decisionReason' | 'completedAt'>,
  event: { id: string; eventType: string; now: Date },
): CaseEventPayload {
  const { id, eventType, now } = event;
  return {
    eventType,
    eventId: `evt_${id}`,
    timestamp: now.toISOString(),
    apiVersion: 'v1',
    tenantId: row.tenantId,
    sandbox: row.sandbox,
    data: {
      caseId: row.id,
      externalReference: row.externalReference,
      status: row.status,
      documentType: row.documentType,
      compositeRiskScore: row.compositeRiskScore,
      decisionReason: row.decisionReason,
      completedAt: row.completedAt?.toISOString() ?? null,
    },
  };
}

export interface TransitionInput {
  trigger: CaseTrigger;
  /** Phrase for the error, e.g. "be cancelled". */
  action: string;
  actor: CaseActor;
  now: Date;
  /** Decision fields set with the move (checks and review). */
  decision?: { compositeRiskScore?: number | null; decisionReason?: string | null };
  /** Extra audit detail (a cancel's reason). */
  auditDetail?: Record<string, unknown>;
}

/**
 * The one way a case's status changes: checks the transition table against the locked row,
 * then writes status, updatedAt/completedAt, the audit row and the outbox event in the
 * caller's transaction. The caller must hold the row lock (lockCase).
 */
export async function transitionCase(tx: IdentityExecutor, locked: CaseRow, input: TransitionInput): Promise<CaseRow> {
  const from = locked.status as CaseStatus;
  const to = nextStatus(from, input.trigger);
  if (!to) throw new InvalidCaseStateError(locked.id, from, input.action);
  const [updated] = await tx
    .update(verificationCases)
    .set({
      status: to,
      updatedAt: input.now,
      completedAt: isTerminal(to) ? input.now : null,
      ...(input.decision ?? {}),
    })
    .where(eq(verificationCases.id, locked.id))
    .returning();
  if (!updated) throw new Error(`case ${locked.id} vanished while locked`);
  await writeAudit(
    tx,
    {
      tenantId: locked.tenantId,
      actor: input.actor.actor,
      action: `verification.${input.trigger}`,
      target: `case:${locked.id}`,
      correlationId: input.actor.correlationId ?? null,
      before: { status: from },
      after: { status: to, ...input.decision, ...input.auditDetail },
    },
    input.now,
  );
  await recordCaseEvent(tx, updated, input.now);
  return updated;
}
