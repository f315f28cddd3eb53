/** The automated checks of one case (OCR, face match, liveness); handled once the checks provider lands. */
export const RUN_CHECKS_JOB = 'run-checks';
/** A provider outage gets a few tries before the case is failed (the checks issue refines the schedule). */
export const RUN_CHECKS_MAX_ATTEMPTS = 5;
