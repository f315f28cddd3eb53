import { readFileSync } from 'node:fs';
import { baseServiceEnvironment, LOOPBACK_PROXIES, parseEnvironment, requireSecretsKeyWithDatabase, trustedProxiesVariable } from '@svc/service-kit';
import { z } from 'zod';

const emptyAsUndefined = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);
const positiveInteger = (fallback: number) => z.preprocess(emptyAsUndefined, z.coerce.number().int().positive().default(fallback));

/** A PEM file path, read at start so a wrong path stops the service with its name. */
const pemFile = z.preprocess(
  emptyAsUndefined,
  z
    .string()
    .optional()
    .transform((path, context) => {
      if (path === undefined) return undefined;
      try {
        return readFileSync(path, 'utf8');
      } catch (error) {
        context.addIssue({ code: 'custom', message: `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` });
        return z.NEVER;
      }
    }),
);

export const identityEnvironmentSchema = baseServiceEnvironment(3001)
  .extend({
    /** Proxies whose X-Forwarded-For and client-certificate headers are believed. Default: loopback. */
    TRUSTED_PROXIES: trustedProxiesVariable(LOOPBACK_PROXIES),
    /** Header in which a trusted proxy forwards the URL-escaped client PEM (nginx $ssl_client_escaped_cert). */
    CLIENT_CERT_HEADER: z.preprocess(emptyAsUndefined, z.string().regex(/^[A-Za-z0-9-]+$/, 'must be a header name').default('X-Client-Cert')),
    /** Direct mutual TLS: server certificate and key (PEM file paths); both or neither. */
    TLS_CERT: pemFile,
    TLS_KEY: pemFile,
    /** Requests per client IP per fixed one-minute window (the spec's 120; the bench raises it). */
    RATE_LIMIT_PER_MINUTE: positiveInteger(120),
    /** Marks the portal cookie Secure; off only for plain-HTTP local development. */
    PORTAL_COOKIE_SECURE: z.preprocess(emptyAsUndefined, z.enum(['true', 'false']).default('true').transform((value) => value === 'true')),
  })
  .superRefine(requireSecretsKeyWithDatabase)
  .superRefine((value, context) => {
    if ((value.TLS_CERT === undefined) !== (value.TLS_KEY === undefined)) {
      context.addIssue({ code: 'custom', path: [value.TLS_CERT === undefined ? 'TLS_CERT' : 'TLS_KEY'], message: 'TLS_CERT and TLS_KEY must be set together' });
    }
  });

export type IdentityConfig = Readonly<z.output<typeof identityEnvironmentSchema>>;

export function loadIdentityConfig(env: Record<string, string | undefined> = process.env): IdentityConfig {
  return parseEnvironment(identityEnvironmentSchema, env);
}
