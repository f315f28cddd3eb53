export { ARGON2_PARAMETERS, checkPassword, hashPassword, isCommonPassword, newPasswordSchema, UNKNOWN_USER_PASSWORD_HASH } from './passwords.js';
export { generateOpaqueToken, hashScryptPassword, hashToken, verifyPassword } from './credentials.js';
export {
  mintResetToken,
  PASSWORD_RESET_RULES,
  refuseResetRequestsBeyondLimits,
  RESET_TOKEN_BYTES,
  resetExpiry,
  resetLinkProblem,
  ResetLinkUnusableError,
  resetRequestedMessage,
  resetTokenSchema,
  type ResetLinkProblem,
  type ResetRequestScope,
  type ResetRequestWindow,
} from './password-resets.js';
