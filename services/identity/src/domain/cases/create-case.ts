import { createHash, randomUUID } from 'node:crypto';
import { CaseExistsError } from '@svc/problem-json';
import { selectRows } from '@svc/db';
import { and, eq, sql } from 'drizzle-orm';
import { auditLog, caseEvents, caseSessions, tenants, verificationCases, type IdentityExecutor } from '../../db/schema.js';
import { writeAudit } from '../common/audit.js';
import { generateOpaqueToken, hashToken } from '@svc/accounts';
import type { DocumentType } from './case-states.js';
import { caseEventPayload } from './case-transitions.js';
import { deliveriesInsert } from '../webhooks/fan-out.js';
import { WEBHOOK_DELIVERY_CHANNEL } from '../webhooks/webhook-events.js';
import { type CaseActor } from '../common/actor.js';

export const SESSION_TOKEN_PREFIX = 'svc_st_';

export interface CreateCaseInput {
  tenantId: string;
  documentType: DocumentType;
  externalReference: string | null;
  /** The Idempotency-Key header, or null (then a generated key: no retry protection, as the spec says). */
  idempotencyKey: string | null;
  /** Where the hosted capture page sends the user after submit, already validated. */
  returnUrl?: string | null;
  /** The applicant's Latin name as the partner holds it, for the Arabic/Latin name check. */
  applicantName?: ApplicantLatinName | null;
}

export interface ApplicantLatinName {
  givenNames: string;
  surname: string;
}

export interface CreatedCase {
  caseId: string;
  sessionToken: string;
  status: 'SessionIssued';
  expiresAt: Date;
}

/** What makes two creation requests "the same body" for idempotency. */
function fingerprint(input: CreateCaseInput): string {
  return createHash('sha256')
    // Later fields join the list only when given, so keys stored before they existed still replay.
    .update(JSON.stringify([input.documentType, input.externalReference, ...(input.returnUrl || input.applicantName ? [input.returnUrl ?? null] : []), ...(input.applicantName ? [input.applicantName.givenNames, input.applicantName.surname] : [])]))
    .digest('hex');
}

/**
 * Creates a case born SessionIssued with its one-time session, audit row and
 * `verification.session_issued` event (logged and fanned out to the tenant's endpoints).
 *
 * A new key is one statement, outside any transaction: the case, session, audit row, event and
 * deliveries are CTEs of one INSERT, which PostgreSQL commits atomically, so creation costs one
 * round trip instead of eight (BEGIN, five writes, NOTIFY, COMMIT).
 *
 * Idempotency: the key is unique per tenant in the database, so concurrent requests with one
 * key cannot make two cases; the losers wait for the winner's commit (ON CONFLICT) and then
 * see its row. The same key and body while the session is unused and unexpired returns the
 * same case with a freshly issued session token (only the newest works: the old one cannot
 * be shown again, so it is replaced); a different body, a used or expired session, or a case
 * that moved on is 409 CASE_EXISTS naming the case.
 */
export async function createCase(db: IdentityExecutor, input: CreateCaseInput, actor: CaseActor, options: { sessionTtlSeconds: number; now: Date }): Promise<CreatedCase> {
  const requestFingerprint = fingerprint(input);
  const sessionToken = generateOpaqueToken(SESSION_TOKEN_PREFIX, 32);
  const created = await insertCase(db, input, actor, { ...options, requestFingerprint, sessionToken });
  if (created) return created;
  return db.transaction((tx) => reissueSession(tx, input, actor, { now: options.now, requestFingerprint, sessionToken }));
}

/** The one statement that creates a case and everything its creation writes; null when the key exists. */
async function insertCase(
  db: IdentityExecutor,
  input: CreateCaseInput,
  actor: CaseActor,
  options: { sessionTtlSeconds: number; now: Date; requestFingerprint: string; sessionToken: string },
): Promise<CreatedCase | null> {
  const { now } = options;
  const at = now.toISOString();
  const caseId = randomUUID();
  const eventId = randomUUID();
  const eventType = 'verification.session_issued';
  const expiresAt = new Date(now.getTime() + options.sessionTtlSeconds * 1000);
  const row = {
    id: caseId,
    tenantId: input.tenantId,
    externalReference: input.externalReference,
    status: 'SessionIssued',
    documentType: input.documentType,
    compositeRiskScore: null,
    decisionReason: null,
    completedAt: null,
  };
  // The payload names the tenant's sandbox flag, which the statement reads: both bodies go, it picks one.
  const payloadFor = (sandbox: boolean) => JSON.stringify(caseEventPayload({ ...row, sandbox }, { id: eventId, eventType, now }));
  const audit = { status: row.status, documentType: row.documentType, externalReference: row.externalReference, idempotencyKey: input.idempotencyKey };
  const [result] = await selectRows<{ created: number }>(
    db,
    sql`with new_case as (
          insert into ${verificationCases} (id, tenant_id, external_reference, return_url, applicant_given_names, applicant_surname, document_type, status, sandbox, idempotency_key, request_fingerprint, created_at, updated_at)
          values (${caseId}::uuid, ${input.tenantId}::uuid, ${input.externalReference}, ${input.returnUrl ?? null}, ${input.applicantName?.givenNames ?? null}, ${input.applicantName?.surname ?? null}, ${input.documentType}, ${row.status},
                  (select ${tenants.sandbox} from ${tenants} where ${tenants.id} = ${input.tenantId}::uuid),
                  ${input.idempotencyKey ?? `generated:${randomUUID()}`}, ${options.requestFingerprint}, ${at}::timestamptz, ${at}::timestamptz)
          on conflict (tenant_id, idempotency_key) do nothing
          returning sandbox
        ),
        new_session as (
          insert into ${caseSessions} (case_id, tenant_id, session_token_hash, expires_at)
          select ${caseId}::uuid, ${input.tenantId}::uuid, ${hashToken(options.sessionToken)}, ${expiresAt.toISOString()}::timestamptz from new_case
        ),
        -- The columns writeAudit fills, in this statement's round trip.
        audit as (
          insert into ${auditLog} (tenant_id, actor, action, target, correlation_id, after, at)
          select ${input.tenantId}::uuid, ${actor.actor}, 'verification.created', ${`case:${caseId}`}, ${actor.correlationId ?? null}, ${JSON.stringify(audit)}::jsonb, ${at}::timestamptz
          from new_case
        ),
        event as (
          select case when sandbox then ${payloadFor(true)} else ${payloadFor(false)} end as payload from new_case
        ),
        logged_event as (
          insert into ${caseEvents} (id, tenant_id, case_id, event_type, payload, occurred_at)
          select ${eventId}::uuid, ${input.tenantId}::uuid, ${caseId}::uuid, ${eventType}, payload, ${at}::timestamptz from event
        ),
        deliveries as (
          ${deliveriesInsert({ tenantId: input.tenantId, eventType, caseId, payload: sql`(select payload from event)` }, now)} and exists (select 1 from event)
          returning 1
        ),
        -- A SELECT in WITH runs only if the statement reads it: hence the count of woken below.
        woken as (
          select pg_notify(${WEBHOOK_DELIVERY_CHANNEL}, '') from (select 1 from deliveries limit 1) as delivered
        )
        select (select count(*) from new_case)::int as created, (select count(*) from woken)::int as woken`,
  );
  if (!result || result.created === 0) return null;
  return { caseId, sessionToken: options.sessionToken, status: 'SessionIssued', expiresAt };
}

/** A retry with a key that exists: the same case with a fresh session token, or 409 CASE_EXISTS. */
async function reissueSession(
  tx: IdentityExecutor,
  input: CreateCaseInput,
  actor: CaseActor,
  options: { now: Date; requestFingerprint: string; sessionToken: string },
): Promise<CreatedCase> {
  const { now, requestFingerprint, sessionToken } = options;
  // The key's case committed before insertCase returned (ON CONFLICT waited for it); lock it.
  const [locked] = await tx
    .select()
    .from(verificationCases)
    .where(and(eq(verificationCases.tenantId, input.tenantId), eq(verificationCases.idempotencyKey, input.idempotencyKey ?? '')))
    .for('update');
  if (!locked) throw new Error('idempotency conflict without a visible case');
  const [session] = await tx.select().from(caseSessions).where(eq(caseSessions.caseId, locked.id)).for('update');
  const replayable =
    locked.requestFingerprint === requestFingerprint && locked.status === 'SessionIssued' && session && session.usedAt === null && session.expiresAt.getTime() > now.getTime();
  if (!replayable || !session) throw new CaseExistsError(locked.id);
  await tx.update(caseSessions).set({ sessionTokenHash: hashToken(sessionToken) }).where(eq(caseSessions.id, session.id));
  await writeAudit(
    tx,
    { tenantId: input.tenantId, actor: actor.actor, action: 'verification.session_reissued', target: `case:${locked.id}`, correlationId: actor.correlationId ?? null },
    now,
  );
  return { caseId: locked.id, sessionToken, status: 'SessionIssued', expiresAt: session.expiresAt };
}
