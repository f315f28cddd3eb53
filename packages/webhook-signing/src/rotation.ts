/** The longest a replaced secret may keep signing after a rotation: 7 days. */
export const MAX_PREVIOUS_SECRET_VALID_SECONDS = 604_800;

/**
 * What a rotation keeps of the secret it replaces. Without a grace window (absent or 0) nothing: the
 * previous secret stops signing at once. With one, the replaced secret (still sealed as stored) signs
 * beside the new one until it expires; a secret replaced earlier is dropped, so at most two sign at once.
 */
export function previousSecretAfterRotation(input: { replacedSealed: string; validSeconds?: number | undefined; now: Date }): { sealed: string; expiresAt: Date } | null {
  const validSeconds = input.validSeconds ?? 0;
  if (!Number.isInteger(validSeconds) || validSeconds < 0 || validSeconds > MAX_PREVIOUS_SECRET_VALID_SECONDS) {
    throw new RangeError(`previousSecretValidSeconds must be an integer from 0 to ${MAX_PREVIOUS_SECRET_VALID_SECONDS}, got ${validSeconds}`);
  }
  if (validSeconds === 0) return null;
  return { sealed: input.replacedSealed, expiresAt: new Date(input.now.getTime() + validSeconds * 1000) };
}
