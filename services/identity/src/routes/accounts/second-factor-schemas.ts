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
        kind: z.enum(['totp', 'passkey']),
        name: z.string().nullable().meta({ description: "A passkey's name; null for an authenticator app" }),
        createdAt: z.iso.datetime({ offset: true }),
        lastUsedAt: z.iso.datetime({ offset: true }).nullable(),
      }),
    ),
    recoveryCodesLeft: z.number().int(),
  })
  .meta({ id: 'SecondFactorList' });

/** What the user calls a passkey in their list: one line of printable text. */
export const passkeyNameSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(60, 'must be at most 60 characters')
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]*$/, 'must be one line without control characters');

const base64url = z.string().max(16_384).regex(/^[A-Za-z0-9_-]*$/, 'must be base64url');

/** What navigator.credentials.create()/get() options need; the rest of the WebAuthn options pass through as the library makes them. */
export const passkeyOptionsSchema = z
  .looseObject({ challenge: z.string() })
  .meta({ id: 'PasskeyOptions', description: 'PublicKeyCredentialCreationOptionsJSON or PublicKeyCredentialRequestOptionsJSON (WebAuthn Level 3), for @simplewebauthn/browser; the challenge is single-use and valid 5 minutes' });

/** The browser's answer to navigator.credentials.create(), as @simplewebauthn/browser serialises it. */
export const passkeyRegistrationSchema = z.object({
  id: base64url,
  rawId: base64url,
  type: z.literal('public-key'),
  response: z.looseObject({ clientDataJSON: base64url, attestationObject: base64url, transports: z.array(z.string().max(20)).max(10).optional() }),
  clientExtensionResults: z.looseObject({}).default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
}).meta({ id: 'PasskeyRegistrationResponse' });

/** The browser's answer to navigator.credentials.get(). */
export const passkeyAssertionSchema = z.object({
  id: base64url,
  rawId: base64url,
  type: z.literal('public-key'),
  response: z.looseObject({ clientDataJSON: base64url, authenticatorData: base64url, signature: base64url, userHandle: base64url.optional() }),
  clientExtensionResults: z.looseObject({}).default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
}).meta({ id: 'PasskeyAssertion' });

/** The second step of a sign-in: an authenticator code, a recovery code or a passkey, with the pending token (or its cookie). */
export const secondStepBodySchema = z.union([
  z.strictObject({ pendingSignInToken: z.string().max(200).optional(), code: totpCodeSchema }),
  z.strictObject({ pendingSignInToken: z.string().max(200).optional(), recoveryCode: z.string().min(1).max(40) }),
  z.strictObject({ pendingSignInToken: z.string().max(200).optional(), passkey: passkeyAssertionSchema }),
]);
