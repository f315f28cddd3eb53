import type { AppDatabase } from '@svc/db';
import { OPEN_CASE_STATUSES } from '@svc/identity-client/types';
import { defineDeliveryTable, defineJobTable } from '@svc/outbox';
import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, doublePrecision, index, integer, jsonb, pgSchema, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

/** identity owns this Postgres schema; every table of the service is declared on it. */
export const identitySchema = pgSchema('identity');

const timestampTz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const tenants = identitySchema.table('tenants', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  /** 'active' | 'disabled': a disabled tenant's users, clients and tokens all get 403 ACCOUNT_DISABLED. */
  status: text('status').notNull().default('active'),
  /** A sandbox tenant's cases are decided by the built-in simulator, never by the real checks. */
  sandbox: boolean('sandbox').notNull().default(false),
  /** Days a decided (approved or rejected) case keeps its evidence and personal data before the retention sweep redacts it. */
  evidenceRetentionDays: integer('evidence_retention_days').notNull().default(90),
  /** Its portal users must have a second factor: one without is sent to enrol at the next sign-in. */
  requireSecondFactor: boolean('require_second_factor').notNull().default(false),
  /** Origins (scheme://host[:port]) whose pages may frame the hosted capture page; empty: none may. */
  captureEmbedOrigins: text('capture_embed_origins').array().notNull().default(sql`'{}'::text[]`),
  createdAt: timestampTz('created_at').notNull().defaultNow(),
  updatedAt: timestampTz('updated_at').notNull().defaultNow(),
});

export const portalUsers = identitySchema.table(
  'portal_users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull().references(() => tenants.id),
    /** Stored lower-cased: one email is one login across all tenants. */
    email: text('email').notNull(),
    role: text('role').notNull(),
    passwordHash: text('password_hash').notNull(),
    /** 'active' | 'disabled': a disabled user cannot sign in, and their sessions end when they are disabled. */
    status: text('status').notNull().default('active'),
    /** The language the user last signed in with (the page's), so mails reach them in it; null until then. */
    preferredLanguage: text('preferred_language'),
    createdAt: timestampTz('created_at').notNull().defaultNow(),
  },
  (table) => [uniqueIndex('portal_users_email_key').on(table.email), index('portal_users_tenant_idx').on(table.tenantId)],
);

/**
 * A PartnerAdmin's invitation of a colleague: single use, 72 hours, only the SHA-256 of its
 * token stored. At most one pending invitation per address and tenant: a re-invite replaces it.
 */
export const portalInvitations = identitySchema.table(
  'portal_invitations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull().references(() => tenants.id),
    email: text('email').notNull(),
    role: text('role').notNull(),
    tokenHash: text('token_hash').notNull(),
    invitedBy: uuid('invited_by').notNull().references(() => portalUsers.id),
    createdAt: timestampTz('created_at').notNull(),
    expiresAt: timestampTz('expires_at').notNull(),
    acceptedAt: timestampTz('accepted_at'),
    acceptedUserId: uuid('accepted_user_id').references(() => portalUsers.id),
    revokedAt: timestampTz('revoked_at'),
  },
  (table) => [
    uniqueIndex('portal_invitations_token_hash_key').on(table.tokenHash),
    uniqueIndex('portal_invitations_pending_key').on(table.tenantId, table.email).where(sql`${table.acceptedAt} is null and ${table.revokedAt} is null`),
  ],
);

/**
 * Failed logins per email address, kept apart from users so an address that has no account
 * locks exactly like one that has (no account enumeration through the lockout).
 */
export const loginThrottle = identitySchema.table('login_throttle', {
  email: text('email').primaryKey(),
  windowStartedAt: timestampTz('window_started_at').notNull(),
  failures: integer('failures').notNull(),
  lockedUntil: timestampTz('locked_until'),
});

export const portalSessions = identitySchema.table(
  'portal_sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** SHA-256 (hex) of the svc_ps_ token; the token itself is never stored. */
    tokenHash: text('token_hash').notNull(),
    userId: uuid('user_id').notNull().references(() => portalUsers.id),
    tenantId: uuid('tenant_id').notNull().references(() => tenants.id),
    createdAt: timestampTz('created_at').notNull().defaultNow(),
    expiresAt: timestampTz('expires_at').notNull(),
    endedAt: timestampTz('ended_at'),
    /** Moved forward at most once a minute by the session's requests: shown in the user's list of sessions. */
    lastSeenAt: timestampTz('last_seen_at'),
    /** Signed in without the second factor the account must have: the session may only enrol one. */
    enrolmentOnly: boolean('enrolment_only').notNull().default(false),
    /** When the password or a second factor was last given in this session: the sensitive actions want it within 5 minutes. */
    authenticatedAt: timestampTz('authenticated_at').notNull().defaultNow(),
    /** The browser and address that signed in (truncated), so a user can tell their sessions apart. */
    userAgent: text('user_agent'),
    ipAddress: text('ip_address'),
  },
  (table) => [uniqueIndex('portal_sessions_token_hash_key').on(table.tokenHash), index('portal_sessions_user_idx').on(table.userId)],
);

export const oauthClients = identitySchema.table(
  'oauth_clients',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull().references(() => tenants.id),
    clientId: text('client_id').notNull(),
    clientName: text('client_name').notNull(),
    /** Lowercase hex SHA-256 of the certificate DER. */
    certificateThumbprint: text('certificate_thumbprint').notNull(),
    certificateSubjectDn: text('certificate_subject_dn').notNull(),
    certificateNotBefore: timestampTz('certificate_not_before').notNull(),
    certificateNotAfter: timestampTz('certificate_not_after').notNull(),
    allowedScopes: text('allowed_scopes').notNull(),
    createdAt: timestampTz('created_at').notNull().defaultNow(),
    lastUsedAt: timestampTz('last_used_at'),
    revokedAt: timestampTz('revoked_at'),
  },
  (table) => [
    uniqueIndex('oauth_clients_client_id_key').on(table.clientId),
    // A certificate identifies one live client across all tenants; a revoked client's may be registered again.
    uniqueIndex('oauth_clients_active_thumbprint_key').on(table.certificateThumbprint).where(sql`${table.revokedAt} is null`),
    index('oauth_clients_tenant_idx').on(table.tenantId, table.createdAt),
  ],
);

export const accessTokens = identitySchema.table(
  'access_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** SHA-256 (hex) of the svc_at_ token; the token itself is never stored. */
    tokenHash: text('token_hash').notNull(),
    tenantId: uuid('tenant_id').notNull().references(() => tenants.id),
    clientEntityId: uuid('client_entity_id').notNull().references(() => oauthClients.id),
    certificateThumbprint: text('certificate_thumbprint').notNull(),
    scope: text('scope').notNull(),
    issuedAt: timestampTz('issued_at').notNull(),
    expiresAt: timestampTz('expires_at').notNull(),
    revokedAt: timestampTz('revoked_at'),
  },
  (table) => [uniqueIndex('access_tokens_token_hash_key').on(table.tokenHash), index('access_tokens_client_idx').on(table.clientEntityId)],
);

export const auditLog = identitySchema.table(
  'audit_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    tenantId: uuid('tenant_id'),
    /** Who acted: `user:<id>`, `client:<clientId>`, `cli`, or `anonymous` for a failed login. */
    actor: text('actor').notNull(),
    action: text('action').notNull(),
    target: text('target'),
    correlationId: text('correlation_id'),
    before: jsonb('before'),
    after: jsonb('after'),
    at: timestampTz('at').notNull().defaultNow(),
  },
  // The second index serves a case's timeline (GET /verifications/{caseId}/history).
  (table) => [index('audit_log_tenant_at_idx').on(table.tenantId, table.at), index('audit_log_target_idx').on(table.target, table.at)],
);

export const verificationCases = identitySchema.table(
  'verification_cases',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull().references(() => tenants.id),
    externalReference: text('external_reference'),
    documentType: text('document_type').notNull(),
    /** Changed only through domain/cases/case-transitions.ts. */
    status: text('status').notNull(),
    /** Copied from the tenant at creation: a case is sandbox or live for life. */
    sandbox: boolean('sandbox').notNull().default(false),
    compositeRiskScore: doublePrecision('composite_risk_score'),
    decisionReason: text('decision_reason'),
    /** The partner's Idempotency-Key, or a generated one when omitted (then nothing can replay it). */
    idempotencyKey: text('idempotency_key').notNull(),
    /** SHA-256 of the creation body: a replayed key with another body is a conflict, not a replay. */
    requestFingerprint: text('request_fingerprint').notNull(),
    createdAt: timestampTz('created_at').notNull(),
    updatedAt: timestampTz('updated_at').notNull(),
    completedAt: timestampTz('completed_at'),
    /** Set when redaction is asked for (by the partner or the retention sweep); the redact-case job does the work. */
    redactionRequestedAt: timestampTz('redaction_requested_at'),
    /** Set when the job has destroyed the data keys, deleted the objects and blanked the personal fields. */
    redactedAt: timestampTz('redacted_at'),
    /** Where the hosted capture page sends the end user after submit (https, or http://localhost in development). */
    returnUrl: text('return_url'),
    /** The end user's consent to the capture, as recorded by POST /api/capture/v1/consent; null until given. */
    consentGivenAt: timestampTz('consent_given_at'),
    consentLanguage: text('consent_language'),
    consentUserAgent: text('consent_user_agent'),
    /** The head-turn side the liveness video must show, drawn when capture starts; null before (and on cases from before it existed). */
    livenessTurnSide: text('liveness_turn_side').$type<'left' | 'right'>(),
    /**
     * The applicant's name in Latin letters as the partner holds it (optional at creation), which the
     * checks compare with the document's Arabic names; personal data, blanked by redaction.
     */
    applicantGivenNames: text('applicant_given_names'),
    applicantSurname: text('applicant_surname'),
  },
  (table) => [
    // The retention sweep scans closed cases not yet handed to redaction.
    index('verification_cases_retention_idx').on(table.completedAt).where(sql`${table.redactionRequestedAt} is null and ${table.completedAt} is not null`),
    // One key never yields two cases, whatever the concurrency: the database decides, not a read-then-write.
    uniqueIndex('verification_cases_idempotency_key').on(table.tenantId, table.idempotencyKey),
    index('verification_cases_tenant_created_idx').on(table.tenantId, table.createdAt.desc(), table.id.desc()),
    index('verification_cases_status_created_idx').on(table.status, table.createdAt, table.id),
    index('verification_cases_tenant_status_created_idx').on(table.tenantId, table.status, table.createdAt.desc(), table.id.desc()),
    // The expiry sweep scans only cases that are still open.
    index('verification_cases_open_created_idx')
      .on(table.createdAt)
      .where(sql`${table.status} in (${sql.raw(OPEN_CASE_STATUSES.map((status) => `'${status}'`).join(', '))})`),
  ],
);

/** The end user's one-time session of a case, and the capture token it is exchanged for. */
export const caseSessions = identitySchema.table(
  'case_sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    caseId: uuid('case_id')
      .notNull()
      .references(() => verificationCases.id),
    tenantId: uuid('tenant_id').notNull(),
    /** SHA-256 (hex) of the session token; replaced when an idempotent retry issues a fresh one. */
    sessionTokenHash: text('session_token_hash').notNull(),
    expiresAt: timestampTz('expires_at').notNull(),
    usedAt: timestampTz('used_at'),
    /** SHA-256 (hex) of the capture token issued by the exchange; null until then. */
    captureTokenHash: text('capture_token_hash'),
  },
  (table) => [
    uniqueIndex('case_sessions_case_key').on(table.caseId),
    uniqueIndex('case_sessions_session_token_key').on(table.sessionTokenHash),
    uniqueIndex('case_sessions_capture_token_key').on(table.captureTokenHash),
    index('case_sessions_open_expiry_idx').on(table.expiresAt),
  ],
);

export const evidence = identitySchema.table(
  'evidence',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    caseId: uuid('case_id')
      .notNull()
      .references(() => verificationCases.id),
    evidenceType: text('evidence_type').notNull(),
    /** Sniffed from the bytes, never the client's claim. */
    contentType: text('content_type').notNull(),
    fileSizeBytes: bigint('file_size_bytes', { mode: 'number' }).notNull(),
    originalFileName: text('original_file_name').notNull(),
    sha256Hash: text('sha256_hash').notNull(),
    /** Where the bytes are; generated by the service, never from client input. */
    storageKey: text('storage_key').notNull(),
    uploadedAt: timestampTz('uploaded_at').notNull(),
    /** Set when a later upload of the same type replaced it; the row and file stay for the audit trail. */
    replacedAt: timestampTz('replaced_at'),
    /** 'none' for objects stored before encryption at rest (until `cli evidence:encrypt-existing`), else the envelope format. */
    encryption: text('encryption').notNull().default('none'),
    /** Id of the key-encryption key (EVIDENCE_KEYS) that sealed the data key. */
    dataKeyId: text('data_key_id'),
    /** The object's own AES-256 data key, sealed (AES-256-GCM) under dataKeyId; null once destroyed by redaction. */
    sealedDataKey: text('sealed_data_key'),
  },
  (table) => [index('evidence_case_idx').on(table.caseId, table.uploadedAt)],
);

/**
 * An evidence object being stored: written before its object, taken in the transaction that
 * records the evidence row. An intent older than EVIDENCE_UPLOAD_GRACE_MS can no longer be taken,
 * so once the sweep removes it (object first, then the row) no late commit can point at the object.
 */
export const evidenceUploads = identitySchema.table(
  'evidence_uploads',
  {
    storageKey: text('storage_key').primaryKey(),
    tenantId: uuid('tenant_id').notNull(),
    startedAt: timestampTz('started_at').notNull().defaultNow(),
  },
  (table) => [index('evidence_uploads_started_idx').on(table.startedAt)],
);

export const ocrResults = identitySchema.table(
  'ocr_results',
  {
    caseId: uuid('case_id')
      .primaryKey()
      .references(() => verificationCases.id),
    tenantId: uuid('tenant_id').notNull(),
    /** Rows written before document-number digests only; new rows and redaction leave it null. */
    documentNumber: text('document_number'),
    /** HMAC-SHA-256 of the documentNumber under a service key: finds a reused document by index without keeping the number. */
    documentNumberDigest: text('document_number_digest'),
    modelName: text('model_name').notNull(),
    modelVersion: text('model_version').notNull(),
    confidenceScore: doublePrecision('confidence_score').notNull(),
    /** Text, not jsonb: the partner sees the object with its keys in the order they were extracted. */
    extractedFieldsJson: text('extracted_fields_json').notNull(),
    mrzIsValid: boolean('mrz_is_valid'),
    mrzRawText: text('mrz_raw_text'),
    hasManipulationIndicators: boolean('has_manipulation_indicators').notNull(),
    inferenceTimestamp: timestampTz('inference_timestamp').notNull(),
    inferenceLatencyMs: integer('inference_latency_ms').notNull(),
    updatedAt: timestampTz('updated_at'),
  },
  (table) => [index('ocr_results_document_number_idx').on(table.tenantId, table.documentNumber), index('ocr_results_document_number_digest_idx').on(table.tenantId, table.documentNumberDigest)],
);

export const faceMatchResults = identitySchema.table('face_match_results', {
  caseId: uuid('case_id')
    .primaryKey()
    .references(() => verificationCases.id),
  modelName: text('model_name').notNull(),
  modelVersion: text('model_version').notNull(),
  similarityScore: doublePrecision('similarity_score').notNull(),
  threshold: doublePrecision('threshold').notNull(),
  isMatch: boolean('is_match').notNull(),
  inferenceTimestamp: timestampTz('inference_timestamp').notNull(),
  inferenceLatencyMs: integer('inference_latency_ms').notNull(),
});

export const livenessResults = identitySchema.table('liveness_results', {
  caseId: uuid('case_id')
    .primaryKey()
    .references(() => verificationCases.id),
  modelName: text('model_name').notNull(),
  modelVersion: text('model_version').notNull(),
  livenessScore: doublePrecision('liveness_score').notNull(),
  threshold: doublePrecision('threshold').notNull(),
  isLive: boolean('is_live').notNull(),
  presentationAttackDetected: boolean('presentation_attack_detected').notNull(),
  attackType: text('attack_type'),
  inferenceTimestamp: timestampTz('inference_timestamp').notNull(),
  inferenceLatencyMs: integer('inference_latency_ms').notNull(),
});

/** What the automated checks found suspicious; items of the case detail's fraudSignals. */
export const fraudSignals = identitySchema.table(
  'fraud_signals',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    caseId: uuid('case_id')
      .notNull()
      .references(() => verificationCases.id),
    type: text('type').notNull(),
    severity: text('severity').notNull(),
    detail: text('detail').notNull(),
    detectedAt: timestampTz('detected_at').notNull(),
  },
  (table) => [index('fraud_signals_case_idx').on(table.caseId, table.detectedAt)],
);

/** Operator staff (role Reviewer or ReviewLead): not tenant members, and never able to use the partner API. */
export const staffUsers = identitySchema.table(
  'staff_users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** Stored lower-cased. */
    email: text('email').notNull(),
    role: text('role').notNull(),
    passwordHash: text('password_hash').notNull(),
    /** The language the reviewer last signed in with (the console's), so mails reach them in it. */
    preferredLanguage: text('preferred_language'),
    createdAt: timestampTz('created_at').notNull(),
  },
  (table) => [uniqueIndex('staff_users_email_key').on(table.email)],
);

export const staffSessions = identitySchema.table(
  'staff_sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** SHA-256 (hex) of the svc_ss_ token. */
    tokenHash: text('token_hash').notNull(),
    staffId: uuid('staff_id')
      .notNull()
      .references(() => staffUsers.id),
    createdAt: timestampTz('created_at').notNull(),
    expiresAt: timestampTz('expires_at').notNull(),
    endedAt: timestampTz('ended_at'),
    /** Moved forward (at most once a minute) by each request: the console signs a reviewer out after inactivity. */
    lastSeenAt: timestampTz('last_seen_at'),
    /** Signed in while STAFF_REQUIRE_SECOND_FACTOR demands a factor the reviewer has not enrolled: the session may only enrol one. */
    enrolmentOnly: boolean('enrolment_only').notNull().default(false),
    /** When the password or a second factor was last given in this session (the sensitive actions want it within 5 minutes). */
    authenticatedAt: timestampTz('authenticated_at').notNull().defaultNow(),
  },
  (table) => [uniqueIndex('staff_sessions_token_hash_key').on(table.tokenHash)],
);

/**
 * Who is working on a case waiting for review: one row per case (the primary key), taken under
 * the case's row lock, so two reviewers racing for a case produce one holder. A row past its
 * expiresAt is free for anyone; a decision or a release deletes it.
 */
export const caseClaims = identitySchema.table('case_claims', {
  caseId: uuid('case_id')
    .primaryKey()
    .references(() => verificationCases.id),
  staffId: uuid('staff_id')
    .notNull()
    .references(() => staffUsers.id),
  claimedAt: timestampTz('claimed_at').notNull(),
  expiresAt: timestampTz('expires_at').notNull(),
});

/** A reviewer's decision on a case in PendingManualReview; items of the case detail's reviewDecisions. */
export const reviewDecisions = identitySchema.table(
  'review_decisions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    caseId: uuid('case_id')
      .notNull()
      .references(() => verificationCases.id),
    reviewerId: uuid('reviewer_id')
      .notNull()
      .references(() => staffUsers.id),
    decision: text('decision').notNull(),
    /** The console's list (document_unreadable, face_mismatch, …); null for a decision sent without one. */
    reasonCode: text('reason_code'),
    reason: text('reason').notNull(),
    decidedAt: timestampTz('decided_at').notNull(),
  },
  (table) => [index('review_decisions_case_idx').on(table.caseId, table.decidedAt), index('review_decisions_reviewer_idx').on(table.reviewerId, table.decidedAt)],
);

/**
 * The log of case events: one row per transition, written in its transaction with the
 * payload frozen as the webhook body. The same transaction fans it out to the tenant's
 * subscribed endpoints (webhook_deliveries), so there is nothing left to dispatch later.
 */
export const caseEvents = identitySchema.table(
  'case_events',
  {
    /** The payload's eventId is `evt_` + this id. */
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id').notNull(),
    caseId: uuid('case_id').notNull(),
    eventType: text('event_type').notNull(),
    payload: text('payload').notNull(),
    occurredAt: timestampTz('occurred_at').notNull(),
  },
  (table) => [
    index('case_events_case_idx').on(table.caseId, table.occurredAt),
  ],
);

/**
 * A tenant's webhook endpoint. Each case event becomes one delivery per active endpoint of
 * the case's tenant subscribed to its type, in the transaction of the state change.
 */
export const webhookEndpoints = identitySchema.table(
  'webhook_endpoints',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull().references(() => tenants.id),
    url: text('url').notNull(),
    eventTypes: text('event_types').array().notNull(),
    isActive: boolean('is_active').notNull().default(true),
    /** AES-256-GCM sealed with SECRETS_KEY (the endpoint id is the associated data); shown in clear only on creation and rotation. */
    signingSecretSealed: text('signing_secret_sealed').notNull(),
    /** The secret a rotation with a grace window replaced, sealed the same way; it also signs until previousSecretExpiresAt. */
    previousSigningSecretSealed: text('previous_signing_secret_sealed'),
    previousSecretExpiresAt: timestampTz('previous_secret_expires_at'),
    createdAt: timestampTz('created_at').notNull(),
    updatedAt: timestampTz('updated_at').notNull(),
  },
  (table) => [index('webhook_endpoints_tenant_idx').on(table.tenantId, table.createdAt)],
);

/** Deliveries of case events to webhook endpoints: the shared @svc/outbox queue; subjectId is the case. */
export const webhookDeliveries = defineDeliveryTable(identitySchema, 'webhook_deliveries');

/** Background work (run-checks) on the shared leased queue of @svc/outbox. */
export const jobs = defineJobTable(identitySchema, 'jobs');

export const databaseSchema = {
  tenants,
  portalUsers,
  loginThrottle,
  portalSessions,
  portalInvitations,
  oauthClients,
  accessTokens,
  auditLog,
  verificationCases,
  caseSessions,
  evidence,
  ocrResults,
  faceMatchResults,
  livenessResults,
  fraudSignals,
  staffUsers,
  staffSessions,
  reviewDecisions,
  caseClaims,
  caseEvents,
  jobs,
  webhookEndpoints,
  webhookDeliveries,
};
export type IdentityDatabaseSchema = typeof databaseSchema;

/** The database or a transaction on it (drizzle transactions are databases too). */
export type IdentityExecutor = AppDatabase<IdentityDatabaseSchema>;
