/** The automated checks of one case (OCR, face match, liveness): domain/checks/run-checks.ts. */
export const RUN_CHECKS_JOB = 'run-checks';
