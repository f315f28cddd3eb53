/**
 * Fault injection for crash tests: with FAULT_CRASH_AT naming one of these points, the process
 * kills itself with SIGKILL the first time it reaches it, exactly as a power cut or the OOM killer
 * would, so a test can stop it between two given steps of a write. Unset (always, outside
 * tests), reaching a point does nothing.
 */
export const CRASH_POINTS = [
  /** The upload's bytes have all arrived, sealed, in the spool file. */
  'evidence-received',
  /** File system store: the object's bytes are fsynced, not yet renamed into place. */
  'evidence-synced',
  /** The object is in place (renamed, or acknowledged by S3), not yet recorded. */
  'evidence-stored',
  /** The evidence row is committed; the client has not been answered. */
  'evidence-recorded',
] as const;

export type CrashPoint = (typeof CRASH_POINTS)[number];

let armed: CrashPoint | undefined;

/** Called once at start with the configured point. */
export function armCrashPoint(point: CrashPoint | undefined): void {
  armed = point;
}

export function reachedCrashPoint(point: CrashPoint): void {
  if (armed === point) process.kill(process.pid, 'SIGKILL');
}
