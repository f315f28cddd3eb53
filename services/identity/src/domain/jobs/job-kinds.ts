/** The automated checks of one case (OCR, face match, liveness): domain/checks/run-checks.ts. */
export const RUN_CHECKS_JOB = 'run-checks';

/** Crypto-shred a closed case's evidence and blank its personal data: domain/redaction/redact-case.ts. */
export const REDACT_CASE_JOB = 'redact-case';

/** NOTIFY channel on which committed jobs wake every job worker, in any process. */
export const JOBS_CHANNEL = 'identity_jobs';
