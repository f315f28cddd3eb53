/**
 * The identity API's types and enumerations, generated from the OpenAPI document the service
 * serves. Browser-safe (no Node imports): the portal and the review console import their
 * response types and status lists from here, so they cannot drift from the server.
 */
import { caseStatusValues, documentTypeValues, evidenceTypeValues, webhookDeliveryStatusValues, webhookEventTypeInputValues } from './generated/openapi.js';
import type { components, operations, paths } from './generated/openapi.js';

export type { components, operations, paths };
export type {
  CaseHistory,
  CaseStatus,
  DocumentType,
  EvidenceRecord,
  EvidenceType,
  FaceMatch,
  FraudSignal,
  IdentityHealth,
  Liveness,
  OAuthAuthorizationServerMetadata,
  OAuthClient,
  OcrResult,
  RedactionAccepted,
  RetentionPolicy,
  ReviewDecision,
  VerificationCase,
  VerificationCaseListItem,
  WebhookDelivery,
  WebhookEndpoint,
} from './generated/openapi.js';

type Json<Path extends keyof paths, Method extends 'get' | 'post', Status extends number> = paths[Path][Method] extends {
  responses: { [S in Status]: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;

export { CANCELLABLE_CASE_STATUSES, DECIDED_CASE_STATUSES, OPEN_CASE_STATUSES, TERMINAL_CASE_STATUSES, UNDECIDED_CASE_STATUSES } from './case-status-sets.js';

/** Every case status, in the lifecycle's order. */
export const CASE_STATUSES = caseStatusValues;
export const DOCUMENT_TYPES = documentTypeValues;
export const EVIDENCE_TYPES = evidenceTypeValues;
/** The event types an endpoint can subscribe to (`webhook.test` is sent on request only). */
export const WEBHOOK_EVENT_TYPES = webhookEventTypeInputValues;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
export const TEST_EVENT_TYPE = 'webhook.test';
export const WEBHOOK_DELIVERY_STATUSES = webhookDeliveryStatusValues;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** One entry of a case's timeline (`GET /verifications/{caseId}/history`). */
export type CaseHistoryEntry = components['schemas']['CaseHistory']['data'][number];
/** A page of `GET /verifications`. */
export type VerificationCasePage = Json<'/api/partner/v1/verifications', 'get', 200>;
/** `POST /verifications`' answer: the case id and the end user's one-time session token. */
export type CreatedVerification = Json<'/api/partner/v1/verifications', 'post', 201>;
/** A page of `GET /webhooks/{id}/deliveries`. */
export type WebhookDeliveryPage = Json<'/api/partner/v1/webhooks/{id}/deliveries', 'get', 200>;
/** `POST /webhooks`' answer: the endpoint and its signing secret, shown only then. */
export type CreatedWebhookEndpoint = Json<'/api/partner/v1/webhooks', 'post', 201>;
/** `GET /reports/summary`. */
export type ReportSummary = Json<'/api/partner/v1/reports/summary', 'get', 200>;
/** `POST /oauth/token`'s answer. */
export type TokenResponse = Json<'/api/partner/v1/oauth/token', 'post', 200>;

/** The JSON body an operation answers with `Status`. */
type OperationJson<Operation extends keyof operations, Status extends number> = operations[Operation] extends {
  responses: { [S in Status]: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;
type ItemOf<T> = T extends readonly (infer Item)[] ? Item : T extends { items: readonly (infer Item)[] } ? Item : never;

/** `GET /portal/session`: the signed-in user, their tenant and whether only enrolment is open. */
export type PortalSessionInfo = OperationJson<'getPortalSession', 200>;
export type PortalRole = PortalSessionInfo['user']['role'];
/** One user of `GET /portal/team/users`. */
export type TeamMember = ItemOf<OperationJson<'listTeamMembers', 200>>;
/** One pending invitation of `GET /portal/team/invitations`. */
export type PendingInvitation = ItemOf<OperationJson<'listPendingInvitations', 200>>;
/** `POST /portal/invitations/lookup`: what the invitation page shows before the password is chosen. */
export type InvitationSummary = OperationJson<'describeInvitation', 200>;
/** One session of `GET /portal/account/sessions`. */
export type OwnPortalSession = ItemOf<OperationJson<'listOwnPortalSessions', 200>>;
/** `GET …/account/second-factors`: the account's factors and its unused recovery codes. */
export type SecondFactorList = OperationJson<'portalListSecondFactors', 200>;
/** `GET /api/capture/v1/session`: what the hosted page shows before the token is exchanged. */
/** POST /portal/certificates/inspect: what registering the certificate would record. */
export type CertificateDetails = OperationJson<'inspectClientCertificate', 200>;
export type CapturePreview = OperationJson<'previewCaptureSession', 200>;
/** `GET /api/capture/v1/status`. */
export type CaptureStatus = OperationJson<'getCaptureStatus', 200>;
export type LivenessChallenge = CaptureStatus['livenessChallenge'];
/** `POST /api/capture/v1/evidence`: the stored evidence and the server's quality hint. */
export type UploadedEvidence = OperationJson<'uploadEvidence', 201>;
