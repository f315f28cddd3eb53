import { describe, expect, it } from 'vitest';
import { checkPassword, generateOpaqueToken, hashPassword, hashScryptPassword, hashToken, isCommonPassword, newPasswordSchema } from '../src/index.js';

describe('the shared account rules', () => {
  it('takes 12 to 256 characters that are not a common password, found from src/ with the shipped list', () => {
    expect(newPasswordSchema.safeParse('a'.repeat(11)).success).toBe(false);
    expect(newPasswordSchema.safeParse('x'.repeat(257)).success).toBe(false);
    expect(isCommonPassword('Password1234')).toBe(true);
    expect(newPasswordSchema.safeParse('password1234').error?.issues[0]?.message).toContain('most common');
    expect(newPasswordSchema.safeParse('a quiet river at dawn 7').success).toBe(true);
  });

  it('hashes with Argon2id, verifies, and asks to upgrade an older scrypt hash', async () => {
    const stored = await hashPassword('a quiet river at dawn 7');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await checkPassword('a quiet river at dawn 7', stored)).toEqual({ matches: true, upgrade: false });
    expect(await checkPassword('a quiet river at dawn 8', stored)).toEqual({ matches: false, upgrade: false });
    expect(await checkPassword('a quiet river at dawn 7', await hashScryptPassword('a quiet river at dawn 7'))).toEqual({ matches: true, upgrade: true });
    expect(await checkPassword('anything', '$argon2id$damaged')).toEqual({ matches: false, upgrade: false });
  });

  it('makes prefixed random tokens stored only as their SHA-256', () => {
    const token = generateOpaqueToken('svc_x_', 32);
    expect(token).toMatch(/^svc_x_[0-9a-f]{64}$/);
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(token)).not.toBe(hashToken(generateOpaqueToken('svc_x_', 32)));
  });
});
