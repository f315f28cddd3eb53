import { MAX_PREVIOUS_SECRET_VALID_SECONDS } from '@svc/webhook-signing';
import { z } from 'zod';

/**
 * The optional body of both services' webhook rotate-secret operations: the replaced secret's grace window.
 * Nullish because Fastify hands a request without a body over as null.
 */
export const rotateSecretBodySchema = z
  .strictObject({
    previousSecretValidSeconds: z
      .int({ error: 'must be an integer number of seconds' })
      .min(0, 'must not be negative')
      .max(MAX_PREVIOUS_SECRET_VALID_SECONDS, `must be at most ${MAX_PREVIOUS_SECRET_VALID_SECONDS} (7 days)`)
      .optional()
      .meta({ description: `How long the replaced secret keeps signing webhook-signature beside the new one, 0 to ${MAX_PREVIOUS_SECRET_VALID_SECONDS} s. Absent or 0: it is invalidated at once` }),
  })
  .nullish();

/** How a webhook signing secret is described in both services' OpenAPI documents. */
export function signingSecretSchema(specSignatureHeader: string) {
  return z.string().meta({
    description: `whsec_ + base64 of 32 random bytes, shown only now. The whole string is the HMAC-SHA256 key of ${specSignatureHeader}; the bytes it encodes are the key of webhook-signature, so \`new Webhook(signingSecret)\` of a Standard Webhooks library takes it as is`,
  });
}

export const ROTATE_SECRET_DESCRIPTION = (specSignatureHeader: string) =>
  `Without a body the previous secret stops signing at once (every later attempt uses the new one). With previousSecretValidSeconds (at most 7 days) it keeps signing the Standard Webhooks header beside the new one until then (\`webhook-signature: v1,<new> v1,<old>\`), so receivers switch without downtime; ${specSignatureHeader} always uses the new one.`;
