import { z } from 'zod';

/** The shapes the portal's and the console's second-factor routes share (declared once, for both OpenAPI and types). */
export const totpCodeSchema = z.string().regex(/^\d{6}$/, 'must be the 6 digits the app shows');

export const recoveryCodesSchema = z.array(z.string()).meta({ id: 'RecoveryCodes', description: 'Ten one-time codes, each signs in once in place of a second factor; shown only once' });

export const totpEnrolmentSchema = z
  .object({
    secret: z.string().meta({ description: 'Base32, for typing into the app by hand' }),
    otpauthUri: z.string().meta({ description: 'The otpauth://totp/… URI to draw as a QR code' }),
  })
  .meta({ id: 'TotpEnrolment' });

export const factorListSchema = z
  .object({
    items: z.array(
      z.object({
        id: z.uuid(),
        kind: z.enum(['totp']),
        createdAt: z.iso.datetime({ offset: true }),
        lastUsedAt: z.iso.datetime({ offset: true }).nullable(),
      }),
    ),
    recoveryCodesLeft: z.number().int(),
  })
  .meta({ id: 'SecondFactorList' });

/** The second step of a sign-in: an authenticator code or a recovery code, with the pending token (or its cookie). */
export const secondStepBodySchema = z.union([
  z.strictObject({ pendingSignInToken: z.string().max(200).optional(), code: totpCodeSchema }),
  z.strictObject({ pendingSignInToken: z.string().max(200).optional(), recoveryCode: z.string().min(1).max(40) }),
]);
