/** The automated checks of one case (OCR, face match, liveness): domain/checks/run-checks.ts. */
export const RUN_CHECKS_JOB = 'run-checks';

/** NOTIFY channel on which committed jobs wake every job worker, in any process. */
export const JOBS_CHANNEL = 'identity_jobs';
