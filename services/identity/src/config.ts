import { readFileSync } from 'node:fs';
import { baseServiceEnvironment, deliveryQueueVariables, emptyAsUndefined, LOOPBACK_PROXIES, parseEnvironment, requireHeadersWithinRequestTimeout, requireSecretsKeyWithDatabase, retryScheduleVariable, trustedProxiesVariable } from '@svc/service-kit';
import { mailEnvironmentVariables } from '@svc/mailer';
import { z } from 'zod';
import { CRASH_POINTS } from './domain/common/crash-points.js';
import { evidenceKeysVariable } from './domain/evidence/evidence-keys.js';
import { WEBHOOK_ATTEMPTS } from './domain/webhooks/webhook-events.js';

const positiveInteger = (fallback: number) => z.preprocess(emptyAsUndefined, z.coerce.number().int().positive().default(fallback));
const booleanFlag = (fallback: boolean) =>
  z.preprocess(emptyAsUndefined, z.enum(['true', 'false'], { error: 'must be true or false' }).default(fallback ? 'true' : 'false').transform((value) => value === 'true'));
const optionalText = z.preprocess(emptyAsUndefined, z.string().optional());
const optionalUrl = z.preprocess(emptyAsUndefined, z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional());
const optionalThreshold = z.preprocess(emptyAsUndefined, z.coerce.number().min(0, 'must be from 0 to 1').max(1, 'must be from 0 to 1').optional());

/**
 * An https origin (no path, query or fragment), written without a trailing slash. The OAuth
 * issuer is one (RFC 8414 §2: https, no query or fragment), and without a path its metadata is
 * at the root's /.well-known/oauth-authorization-server, the one place this service serves it.
 */
const httpsOrigin = z.url({ protocol: /^https$/, error: 'must be an https:// URL' }).transform((value, context) => {
  const url = new URL(value);
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    context.addIssue({ code: 'custom', message: 'must be an origin such as https://identity.example.com, without a path, query or fragment' });
    return z.NEVER;
  }
  return url.origin;
});

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
    /**
     * Where partners reach this service: the OAuth issuer of the authorization server metadata,
     * whose endpoint URLs start with it. The default is the local TLS proxy of infra/ (docker compose).
     */
    PUBLIC_BASE_URL: z.preprocess(emptyAsUndefined, httpsOrigin.default('https://localhost:8443')),
    /**
     * Origin of the hosted capture page in the `captureUrl` of a new case (e.g. a CDN or another
     * host name for end users). Unset: PUBLIC_BASE_URL when it is set or a database is, else the
     * address the embedded default listens at (http://HOST:PORT).
     */
    CAPTURE_BASE_URL: z.preprocess(
      emptyAsUndefined,
      z
        .url({ protocol: /^https?$/, error: 'must be an http(s) origin such as https://verify.example.com' })
        .refine((value) => {
          const url = new URL(value);
          return url.pathname === '/' && url.search === '' && url.hash === '' && url.username === '' && url.password === '';
        }, 'must be an origin such as https://verify.example.com, without a path, query, fragment or credentials')
        .transform((value) => new URL(value).origin)
        .optional(),
    ),
    /** Only when the mutual-TLS endpoints are on another origin (RFC 8705 §5 mtls_endpoint_aliases); unset, they are at PUBLIC_BASE_URL. */
    MTLS_BASE_URL: z.preprocess(emptyAsUndefined, httpsOrigin.optional()),
    /** Direct mutual TLS: server certificate and key (PEM file paths); both or neither. */
    TLS_CERT: pemFile,
    TLS_KEY: pemFile,
    /** Requests per client IP per fixed one-minute window (the spec's 120; the bench raises it). */
    RATE_LIMIT_PER_MINUTE: positiveInteger(120),
    /** The partner portal's build (index.html + assets/); default dist/portal beside the compiled code. */
    PORTAL_WEB_ROOT: optionalText,
    /** The reviewers' console's build; default dist/console beside the compiled code. */
    CONSOLE_WEB_ROOT: optionalText,
    /** The hosted capture page's build; default dist/capture beside the compiled code. */
    CAPTURE_WEB_ROOT: optionalText,
    /**
     * Staff must sign in with a second factor; one without is sent to set one up. Unset: true with
     * DATABASE_URL (a real deployment), false on the embedded default (a laptop demo).
     */
    STAFF_REQUIRE_SECOND_FACTOR: z.preprocess(emptyAsUndefined, z.enum(['true', 'false'], { error: 'must be true or false' }).optional()),
    /** Origins passkeys are registered and used at (comma-separated); the relying party id is the first one's host name. Unset: where this service is reachable. */
    WEBAUTHN_ORIGINS: z.preprocess(
      emptyAsUndefined,
      z
        .string()
        .transform((value) => value.split(',').map((origin) => origin.trim()).filter((origin) => origin !== ''))
        .refine((origins) => origins.length > 0 && origins.every((origin) => URL.canParse(origin) && new URL(origin).origin === origin.replace(/\/$/, '')), 'must be comma-separated origins such as https://portal.example.com')
        .optional(),
    ),
    /** Marks the portal cookie Secure; off only for plain-HTTP local development. */
    PORTAL_COOKIE_SECURE: booleanFlag(true),
    /** Lifetime of a case's one-time session token (the spec's 2 hours); it also bounds capture. */
    SESSION_TTL_SECONDS: positiveInteger(7200),
    /** An open case older than this is expired by the sweep (7 days). */
    CASE_TTL_SECONDS: positiveInteger(604_800),
    EXPIRY_SWEEP_INTERVAL_MS: positiveInteger(60_000),
    /** Run the job worker and expiry sweep inside the API process; false when `pnpm --filter @svc/identity worker` runs them apart. */
    WORKER_IN_PROCESS: booleanFlag(true),
    /** Evidence on the local file system (default $DATA_DIR/identity/evidence); relative paths resolve against the working directory. */
    EVIDENCE_DIR: optionalText,
    /** S3-compatible object storage for evidence, shared by every instance; credentials from the AWS SDK's usual variables. */
    EVIDENCE_S3_BUCKET: optionalText,
    EVIDENCE_S3_ENDPOINT: z.preprocess(emptyAsUndefined, z.url({ error: 'must be a URL such as http://127.0.0.1:9000' }).optional()),
    EVIDENCE_S3_REGION: z.preprocess(emptyAsUndefined, z.string().default('us-east-1')),
    EVIDENCE_S3_FORCE_PATH_STYLE: booleanFlag(true),
    /**
     * Key-encryption keys of evidence at rest, `id:base64key[,…]` (32-byte keys); the first seals
     * new objects' data keys. Unset: one key derived from SECRETS_KEY, id `secrets-key`.
     */
    EVIDENCE_KEYS: z.preprocess(emptyAsUndefined, evidenceKeysVariable),
    /** Expired, cancelled and failed cases are redacted this many days after they closed (decided ones follow their tenant's evidenceRetentionDays). */
    UNDECIDED_RETENTION_DAYS: positiveInteger(7),
    /** How often the worker looks for cases past their retention. */
    RETENTION_SWEEP_INTERVAL_MS: positiveInteger(60_000),
    /** Cases one retention sweep hands to redaction at most (the rest wait for the next sweep). */
    RETENTION_SWEEP_BATCH: positiveInteger(100),
    /** The audit log outlives evidence: entries older than this are deleted by the retention sweep (5 years). */
    AUDIT_RETENTION_DAYS: positiveInteger(1826),
    /**
     * Live tenants' checks: `local` runs OCR + MRZ, face match and liveness on this machine's CPU
     * (@svc/checks-local), `http` calls the three inference endpoints below, `none` sends every
     * live case to manual review. Unset: `local` on the embedded default, `none` with DATABASE_URL.
     */
    CHECKS_PROVIDER: z.preprocess(emptyAsUndefined, z.enum(['none', 'http', 'local'], { error: 'must be none, http or local' }).optional()),
    /** ffmpeg for the local liveness check (Debian's package); a missing one sends live cases to review, never to a pass. */
    CHECKS_FFMPEG_PATH: z.preprocess(emptyAsUndefined, z.string().default('ffmpeg')),
    CHECKS_OCR_URL: optionalUrl,
    CHECKS_FACE_MATCH_URL: optionalUrl,
    CHECKS_LIVENESS_URL: optionalUrl,
    /** Time limit of one inference call, upload included (a liveness video can be 50 MB). */
    CHECKS_TIMEOUT_MS: positiveInteger(30_000),
    /**
     * How long a job stays its worker's without news. Renewed every third of it while the checks
     * run, so it bounds how long a dead worker's cases wait, not how long checks may take.
     */
    JOB_LEASE_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1000, 'must be at least 1000 ms').max(600_000, 'must be at most 600000 ms').default(6000)),
    /** Delay before each attempt of a case's automated checks: at once, after 1 s, after 5 s. */
    CHECKS_RETRY_SCHEDULE_MS: retryScheduleVariable('0,1000,5000'),
    /**
     * Scores at or above these pass (the service applies them, never the provider). Unset, each
     * takes its provider's default (checksThresholdDefaults): the local models' scores are
     * uncalibrated and sit on another scale than a commercial provider's.
     */
    CHECKS_OCR_THRESHOLD: optionalThreshold,
    CHECKS_FACE_THRESHOLD: optionalThreshold,
    CHECKS_LIVENESS_THRESHOLD: optionalThreshold,
    /** Mail transport (SMTP_URL; unset: .eml files under $DATA_DIR/identity/mail), sender and reply address. */
    ...mailEnvironmentVariables('"Identity Verification" <no-reply@localhost>'),
    /** Delay before each attempt of a mail: at once, 10 s, 1 min, 5 min, 15 min, then hourly (40 attempts, about two days). */
    MAIL_RETRY_SCHEDULE_MS: retryScheduleVariable('0,10000,60000,300000,900000,3600000'),
    /** Development and tests only: lets webhook endpoints be loopback/private hosts and plain http://. Never in production. */
    WEBHOOK_ALLOW_PRIVATE_TARGETS: booleanFlag(false),
    /** Delay before each of a delivery's 5 attempts (the spec's 5): at once, 5 s, 5 min, 30 min, 2 h; ±10 % jitter. */
    WEBHOOK_RETRY_SCHEDULE_MS: retryScheduleVariable('0,5000,300000,1800000,7200000'),
    /** A receiver must answer within this (the spec's 30 s), connection included. */
    WEBHOOK_TIMEOUT_MS: positiveInteger(30_000),
    /** Deliveries in flight at once per worker process: a slow receiver holds one of these, not the queue. */
    WEBHOOK_CONCURRENCY: positiveInteger(200),
    ...deliveryQueueVariables(),
    /** Uploads receiving at once from one client address (the capture page sends at most 4 together). */
    CAPTURE_UPLOADS_PER_IP: positiveInteger(8),
    /** Uploads receiving at once in this process, from every address. */
    CAPTURE_UPLOADS_MAX: positiveInteger(1024),
    /** How long an upload waits for its quality hint (local checks only); later, it is answered without one. */
    CAPTURE_QUALITY_HINT_MS: positiveInteger(1_500),
    /** How often spool files left by a crashed upload (older than HTTP_REQUEST_TIMEOUT_MS) are removed; also at start. */
    SPOOL_SWEEP_INTERVAL_MS: positiveInteger(3_600_000),
    /**
     * How long after an evidence object is announced its upload may still be recorded; past it,
     * the object belongs to the abandoned-upload sweep (docs/evidence.md). Covers storing the
     * sealed file (a 50 MB PUT to S3) and the recording transaction, not receiving the body.
     */
    EVIDENCE_UPLOAD_GRACE_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1000, 'must be at least 1000 ms').default(600_000)),
    /** How often the worker removes objects of uploads announced longer than EVIDENCE_UPLOAD_GRACE_MS ago and never recorded. */
    EVIDENCE_UPLOAD_SWEEP_INTERVAL_MS: positiveInteger(60_000),
    /** Tests only: the process kills itself with SIGKILL when it first reaches this step of an upload (crash-points.ts). */
    FAULT_CRASH_AT: z.preprocess(emptyAsUndefined, z.enum(CRASH_POINTS).optional()),
    MAX_IMAGE_BYTES: positiveInteger(10 * 1024 * 1024),
    MAX_VIDEO_BYTES: positiveInteger(50 * 1024 * 1024),
  })
  .superRefine(requireSecretsKeyWithDatabase)
  .superRefine(requireHeadersWithinRequestTimeout)
  .superRefine((value, context) => {
    if (value.WEBHOOK_RETRY_SCHEDULE_MS.length !== WEBHOOK_ATTEMPTS) {
      context.addIssue({ code: 'custom', path: ['WEBHOOK_RETRY_SCHEDULE_MS'], message: `must list ${WEBHOOK_ATTEMPTS} delays, one per attempt (the spec's ${WEBHOOK_ATTEMPTS} attempts)` });
    }
    if (value.CHECKS_PROVIDER !== 'http') return;
    for (const name of ['CHECKS_OCR_URL', 'CHECKS_FACE_MATCH_URL', 'CHECKS_LIVENESS_URL'] as const) {
      if (!value[name]) context.addIssue({ code: 'custom', path: [name], message: 'is required with CHECKS_PROVIDER=http' });
    }
  })
  .superRefine((value, context) => {
    if ((value.TLS_CERT === undefined) !== (value.TLS_KEY === undefined)) {
      context.addIssue({ code: 'custom', path: [value.TLS_CERT === undefined ? 'TLS_CERT' : 'TLS_KEY'], message: 'TLS_CERT and TLS_KEY must be set together' });
    }
  });

type ParsedEnvironment = z.output<typeof identityEnvironmentSchema>;
export type ChecksProviderName = 'none' | 'http' | 'local';

export type IdentityConfig = Readonly<
  Omit<ParsedEnvironment, 'CHECKS_PROVIDER' | 'CHECKS_OCR_THRESHOLD' | 'CHECKS_FACE_THRESHOLD' | 'CHECKS_LIVENESS_THRESHOLD' | 'STAFF_REQUIRE_SECOND_FACTOR' | 'WEBAUTHN_ORIGINS'> & {
    STAFF_REQUIRE_SECOND_FACTOR: boolean;
    /** WEBAUTHN_ORIGINS, else where this service is reachable. */
    WEBAUTHN_ORIGINS: string[];
    CHECKS_PROVIDER: ChecksProviderName;
    CHECKS_OCR_THRESHOLD: number;
    CHECKS_FACE_THRESHOLD: number;
    CHECKS_LIVENESS_THRESHOLD: number;
    /** A face similarity below this rejects; between it and the threshold, a person decides. Derived from the provider, not a variable. */
    CHECKS_FACE_REJECT_BELOW: number;
    /** The origin of every captureUrl: CAPTURE_BASE_URL, else where this service is reachable (derived, not a variable). */
    CAPTURE_ORIGIN: string;
    /** The origin of the portal's invitation links: where this service is reachable (derived, not a variable). */
    PORTAL_ORIGIN: string;
  }
>;

/**
 * Default pass marks per provider. `http`: a commercial provider's calibrated scores. `local`:
 * set from the synthetic set measured on this machine (docs/decisions/0192-thresholds.md), with
 * room below each for borderline cases to go to a person rather than pass.
 */
export const checksThresholdDefaults: Record<ChecksProviderName, { ocr: number; face: number; liveness: number; faceRejectBelow: number }> = {
  none: { ocr: 0.85, face: 0.8, liveness: 0.8, faceRejectBelow: 0.5 },
  http: { ocr: 0.85, face: 0.8, liveness: 0.8, faceRejectBelow: 0.5 },
  // Face: genuine pairs of the sample set scored 0.38-0.80 (median 0.62), impostors 0.10-0.59 (median 0.32);
  // rejecting only below 0.35 keeps genuine people out of automatic rejection. Liveness: only a clip showing
  // every signal (one face, blink, head turn, non-rigid) reaches 0.9.
  local: { ocr: 0.85, face: 0.6, liveness: 0.9, faceRejectBelow: 0.35 },
};

/**
 * Where people open the pages this service serves (capture, portal). PUBLIC_BASE_URL's default is
 * the docker compose TLS proxy, which the embedded default (no database, no proxy) does not run:
 * there the pages are at the address the service itself prints when it starts listening.
 */
function reachableOrigin(parsed: ParsedEnvironment, publicBaseUrlSet: boolean): string {
  if (publicBaseUrlSet || parsed.DATABASE_URL) return parsed.PUBLIC_BASE_URL;
  const host = parsed.HOST === '0.0.0.0' || parsed.HOST === '::' ? 'localhost' : parsed.HOST.includes(':') ? `[${parsed.HOST}]` : parsed.HOST;
  return `${parsed.TLS_CERT ? 'https' : 'http'}://${host}:${parsed.PORT}`;
}

/**
 * A relying party id must be a domain name, never an IP address: a service reachable at a
 * loopback address is offered to passkeys as `localhost` (the same machine), which is also the
 * address the README opens the portal at.
 */
function passkeyOrigin(origin: string): string {
  const url = new URL(origin);
  if (url.hostname === '127.0.0.1' || url.hostname === '[::1]') url.hostname = 'localhost';
  return url.origin;
}

function withProviderDefaults(parsed: ParsedEnvironment, publicBaseUrlSet: boolean): IdentityConfig {
  const provider: ChecksProviderName = parsed.CHECKS_PROVIDER ?? (parsed.DATABASE_URL ? 'none' : 'local');
  const defaults = checksThresholdDefaults[provider];
  return Object.freeze({
    ...parsed,
    CHECKS_PROVIDER: provider,
    CHECKS_OCR_THRESHOLD: parsed.CHECKS_OCR_THRESHOLD ?? defaults.ocr,
    CHECKS_FACE_THRESHOLD: parsed.CHECKS_FACE_THRESHOLD ?? defaults.face,
    CHECKS_LIVENESS_THRESHOLD: parsed.CHECKS_LIVENESS_THRESHOLD ?? defaults.liveness,
    CHECKS_FACE_REJECT_BELOW: Math.min(defaults.faceRejectBelow, parsed.CHECKS_FACE_THRESHOLD ?? defaults.face),
    CAPTURE_ORIGIN: parsed.CAPTURE_BASE_URL ?? reachableOrigin(parsed, publicBaseUrlSet),
    PORTAL_ORIGIN: reachableOrigin(parsed, publicBaseUrlSet),
    WEBAUTHN_ORIGINS: (parsed.WEBAUTHN_ORIGINS ?? [passkeyOrigin(reachableOrigin(parsed, publicBaseUrlSet))]).map((origin) => new URL(origin).origin),
    STAFF_REQUIRE_SECOND_FACTOR: parsed.STAFF_REQUIRE_SECOND_FACTOR === undefined ? parsed.DATABASE_URL !== undefined : parsed.STAFF_REQUIRE_SECOND_FACTOR === 'true',
  });
}

export function loadIdentityConfig(env: Record<string, string | undefined> = process.env): IdentityConfig {
  return withProviderDefaults(parseEnvironment(identityEnvironmentSchema, env), emptyAsUndefined(env.PUBLIC_BASE_URL) !== undefined);
}
