/**
 * Who caused a change: recorded on the audit row with the request's correlation id. Cases,
 * webhooks, evidence and redaction all record one, so it belongs to none of them.
 */
export interface CaseActor {
  /** `client:<clientId>`, `user:<id>`, `end-user:<sessionId>`, `system:expiry`, … */
  actor: string;
  correlationId?: string | null;
}
