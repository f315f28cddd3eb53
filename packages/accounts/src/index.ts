export { ARGON2_PARAMETERS, checkPassword, hashPassword, isCommonPassword, newPasswordSchema, UNKNOWN_USER_PASSWORD_HASH } from './passwords.js';
export { generateOpaqueToken, hashScryptPassword, hashToken, verifyPassword } from './credentials.js';
