import multipart from '@fastify/multipart';
import { problemResponses, UnsupportedMediaTypeError, ValidationError } from '@svc/problem-json';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { IdentityExecutor } from '../../db/schema.js';
import { assertCapturing, authenticateCaptureToken, exchangeSessionToken, previewSessionToken } from '../../domain/capture/capture-sessions.js';
import { CAPTURE_LANGUAGES, captureContext, recordConsent } from '../../domain/capture/consent.js';
import type { UploadLimits } from '../../domain/capture/evidence-upload.js';
import { takeEvidence } from '../../domain/capture/take-evidence.js';
import { QUALITY_REASONS } from '../../domain/capture/quality-hint.js';
import type { QualityHints } from '@svc/checks-local';
import type { UploadSlots } from '../../domain/capture/upload-slots.js';
import { captureStatus, submitEvidence } from '../../domain/capture/submit-evidence.js';
import { EVIDENCE_TYPES, type EvidenceType } from '../../domain/cases/case-states.js';
import { bearerCredential } from '../../plugins/authentication.js';
import { bodyAbortSignal } from '@svc/service-kit';
import { multipartBoundary, watchMultipartBody, whenAborted } from '../../domain/capture/multipart-body-guard.js';
import type { EvidenceVault } from '../../domain/evidence/evidence-vault.js';
import { caseStatusSchema, documentTypeSchema, evidenceRecordSchema, evidenceTypeSchema } from '../case-schemas.js';

export const CAPTURE_BASE_PATH = '/api/capture/v1';

export interface CaptureRouteOptions {
  db: IdentityExecutor;
  storage: EvidenceVault;
  clock: () => Date;
  limits: UploadLimits;
  /** How long after its object is announced an upload may still be recorded (EVIDENCE_UPLOAD_GRACE_MS). */
  uploadGraceMs: number;
  /** Concurrent uploads per client address and per process. */
  uploadSlots: UploadSlots;
  /** Attempts of the run-checks job a submit queues (CHECKS_RETRY_SCHEDULE_MS). */
  checksAttempts: number;
  /** Called after a submit commits (wakes the job worker). */
  afterSubmit: () => void;
  /** Quick looks at live cases' photos (CHECKS_PROVIDER=local), each within its budget; null: every upload answers quality null. */
  qualityHints: { hints: QualityHints; budgetMs: number } | null;
}

const uploadQualitySchema = z
  .object({
    mrzReadable: z.boolean().nullable().meta({ description: "Whether the machine-readable zone read with a valid check digit (a passport's DocumentFront, an ID card's DocumentBack); null for other pieces" }),
    faceCount: z.number().int().nullable().meta({ description: 'Faces found in a Selfie; null for other pieces' }),
    retake: z.boolean().meta({ description: 'Ask the user for this piece again now: the automated checks would most likely send the case to manual review' }),
    reason: z.enum(QUALITY_REASONS).nullable().meta({ description: 'Why a retake: MRZ_UNREADABLE, NO_FACE or SEVERAL_FACES' }),
  })
  .meta({ id: 'UploadQuality' });

const uploadedEvidenceSchema = evidenceRecordSchema
  .extend({
    quality: uploadQualitySchema.nullable().meta({
      description:
        "A quick look at the photo, answered within about 1.5 s: live cases with the on-CPU checks (CHECKS_PROVIDER=local) only. null when there is nothing to say: another provider, a sandbox case, the video or an ID card's front, or no answer in time. Advice only; the submitted case's checks decide.",
    }),
  })
  .meta({ id: 'UploadedEvidence' });

const sessionSecurity = [{ captureSession: [] }];
const captureSecurity = [{ captureToken: [] }];
const CAPTURE_ERRORS = {
  401: 'UNAUTHENTICATED: missing or unknown capture token',
  410: 'SESSION_EXPIRED or CASE_CLOSED (cancelled, expired or decided)',
  429: 'RATE_LIMITED',
} as const;

function checkEvidenceType(value: string | undefined): EvidenceType {
  if (value === undefined) throw new ValidationError('Send the text field evidenceType before the file.', [{ path: 'body.evidenceType', message: 'is required before the file' }]);
  if (!(EVIDENCE_TYPES as readonly string[]).includes(value)) {
    throw new ValidationError(`evidenceType must be one of ${EVIDENCE_TYPES.join(', ')}.`, [{ path: 'body.evidenceType', message: `unknown evidence type "${value.slice(0, 50)}"` }]);
  }
  return value as EvidenceType;
}

/**
 * The end user's side, under its own base path: no partner credentials, only the one-time
 * session token (exchanged once) and the capture token it yields. Same per-IP limit as the
 * partner API, counted apart.
 */
export const captureRoutes: FastifyPluginAsync<CaptureRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const { db, clock } = options;
  await app.register(multipart, {
    limits: { fileSize: Math.max(options.limits.maxImageBytes, options.limits.maxVideoBytes), files: 1, fields: 4, fieldSize: 1024, parts: 6, headerPairs: 50 },
  });

  typed.get(
    '/session',
    {
      schema: {
        operationId: 'previewCaptureSession',
        summary: 'What a session token is for, without using it',
        description:
          'Authorization: Bearer <sessionToken>. Read-only: the token stays unused. The hosted capture page calls it to show who asks before the user starts; a used, expired or closed session gets the same problem as the exchange would.',
        tags: ['capture'],
        security: sessionSecurity,
        response: {
          200: z.object({
            tenantName: z.string().meta({ description: 'The partner asking for the verification, as the end user should see it' }),
            documentType: documentTypeSchema,
            requiredEvidence: z.array(evidenceTypeSchema),
            expiresAt: z.string(),
          }),
          ...problemResponses({ 401: 'UNAUTHENTICATED (unknown token) or SESSION_ALREADY_USED', 410: CAPTURE_ERRORS[410], 429: CAPTURE_ERRORS[429] }),
        },
      },
    },
    async (request) => {
      const preview = await previewSessionToken(db, bearerCredential(request) ?? '', clock());
      return preview;
    },
  );

  typed.post(
    '/session',
    {
      schema: {
        operationId: 'createCaptureSession',
        summary: 'Exchange the session token for a capture token (once)',
        description: 'Authorization: Bearer <sessionToken from the partner>. Marks the session used and moves the case to CaptureStarted. The capture token is valid until the session expires.',
        tags: ['capture'],
        security: sessionSecurity,
        response: {
          200: z.object({
            captureToken: z.string().meta({ description: 'svc_ct_…: send as Authorization: Bearer on /evidence, /submit and /status' }),
            caseId: z.uuid(),
            documentType: documentTypeSchema,
            requiredEvidence: z.array(evidenceTypeSchema),
            expiresAt: z.string(),
          }),
          ...problemResponses({ 401: 'UNAUTHENTICATED (unknown token) or SESSION_ALREADY_USED', 410: CAPTURE_ERRORS[410], 429: CAPTURE_ERRORS[429] }),
        },
      },
    },
    async (request) => {
      const sessionToken = bearerCredential(request) ?? '';
      const exchanged = await db.transaction((tx) => exchangeSessionToken(tx, sessionToken, request.id, clock()));
      return exchanged;
    },
  );

  typed.post(
    '/consent',
    {
      schema: {
        operationId: 'recordCaptureConsent',
        summary: "Record the end user's consent to the capture",
        description:
          "The language the consent text was shown in; the time and the browser's User-Agent are recorded with it and appear as `consent` in the partner's case detail. The hosted capture page always sends it before the camera opens; other capture clients may. A second call records again.",
        tags: ['capture'],
        security: captureSecurity,
        body: z.strictObject({ language: z.enum(CAPTURE_LANGUAGES, { error: `must be one of ${CAPTURE_LANGUAGES.join(', ')}` }).meta({ description: 'ar, en, ckb (Kurdish Sorani) or kmr (Kurmanji)' }) }),
        response: {
          204: z.null().describe('Recorded'),
          ...problemResponses({ 400: 'VALIDATION_ERROR: language missing or unknown', ...CAPTURE_ERRORS, 409: 'INVALID_CASE_STATE: evidence was already submitted' }),
        },
      },
    },
    async (request, reply) => {
      const session = await authenticateCaptureToken(db, bearerCredential(request));
      await db.transaction((tx) => recordConsent(tx, session, { language: request.body.language, userAgent: request.headers['user-agent'] }, { correlationId: request.id, now: clock() }));
      return reply.code(204).send(null);
    },
  );

  typed.post(
    '/evidence',
    {
      schema: {
        operationId: 'uploadEvidence',
        summary: 'Upload one piece of evidence',
        description:
          'multipart/form-data: a text field `evidenceType` (DocumentFront, DocumentBack, Selfie, LivenessVideo), then one file in the field `file`. The content type is sniffed from the bytes: JPEG, PNG, WebP or HEIC for images, MP4, WebM or QuickTime for LivenessVideo. Images up to 10 MB, video up to 50 MB (configurable). A second upload of a type replaces the first. With the on-CPU checks, a live case\'s document and selfie answers carry a `quality` hint (beyond the capture API as first specified: see docs/capture-page.md).',
        tags: ['capture'],
        security: captureSecurity,
        consumes: ['multipart/form-data'],
        response: {
          201: uploadedEvidenceSchema,
          ...problemResponses({
            400: 'VALIDATION_ERROR: evidenceType missing, unknown, or after the file; no file. INCOMPLETE_BODY: the body ended before its closing boundary',
            ...CAPTURE_ERRORS,
            408: 'REQUEST_TIMEOUT: the body stopped arriving (HTTP_SILENCE_TIMEOUT_MS) or took longer than HTTP_REQUEST_TIMEOUT_MS',
            429: 'RATE_LIMITED, or TOO_MANY_UPLOADS: more uploads at once than allowed from one address (CAPTURE_UPLOADS_PER_IP) or in all (CAPTURE_UPLOADS_MAX); Retry-After says when to try again',
            503: 'SHUTTING_DOWN: the server stopped while the body was arriving; or SERVICE_UNAVAILABLE: the database was away, or storing took longer than EVIDENCE_UPLOAD_GRACE_MS (nothing was recorded); send it again after Retry-After',
            409: 'INVALID_CASE_STATE: evidence was already submitted',
            413: 'PAYLOAD_TOO_LARGE',
            415: 'UNSUPPORTED_MEDIA_TYPE: not multipart, or the bytes are not an accepted image/video',
          }),
        },
      },
      // Before the body is read or the token checked: a refused upload costs nothing.
      onRequest: (request, reply, done) => {
        const release = options.uploadSlots.acquire(request.ip);
        reply.raw.once('close', release);
        done();
      },
    },
    async (request, reply) => {
      const session = await authenticateCaptureToken(db, bearerCredential(request));
      if (!request.isMultipart()) throw new UnsupportedMediaTypeError('Send multipart/form-data with a field evidenceType and then a file in the field file.');
      // Without a boundary the multipart parser throws a plain Error when the parts are first asked for (a 500).
      const boundary = multipartBoundary(request.headers['content-type']);
      if (!boundary) {
        throw new ValidationError('The multipart/form-data content type needs a boundary parameter.', [{ path: 'headers.content-type', message: 'must name a boundary' }]);
      }
      // Parts in the order sent: the type must be known before the file's bytes are read.
      let evidenceType: string | undefined;
      const parts = request.parts()[Symbol.asyncIterator]();
      const signal = watchMultipartBody(request.raw, boundary, bodyAbortSignal(request));
      const aborted = whenAborted(signal);
      aborted.catch(() => undefined);
      for (;;) {
        // A body that stops between parts never settles the parser's promise: race it against the signal.
        const next = await Promise.race([parts.next(), aborted]);
        if (next.done) break;
        const part = next.value;
        if (part.type === 'field') {
          if (part.fieldname === 'evidenceType') evidenceType = String(part.value);
          continue;
        }
        try {
          const type = checkEvidenceType(evidenceType);
          if (part.fieldname !== 'file') throw new ValidationError('Send the file in the multipart field "file".', [{ path: `body.${part.fieldname.slice(0, 50)}`, message: 'unexpected file field' }]);
          assertCapturing(session, clock());
          const taken = await takeEvidence(
            db,
            options.storage,
            session,
            { evidenceType: type, fileName: part.filename, stream: part.file, wasTruncated: () => part.file.truncated, signal },
            { limits: options.limits, correlationId: request.id, clock, uploadGraceMs: options.uploadGraceMs, qualityHints: options.qualityHints },
          );
          return await reply.code(201).send(taken);
        } catch (error) {
          // Unread bytes would stall the parser: drain them before answering.
          part.file.resume();
          // The parser's own complaint about a cut body ("Part terminated early") is a 500; the signal's reason says what happened.
          throw signal.aborted ? signal.reason : error;
        }
      }
      if (signal.aborted) throw signal.reason;
      throw new ValidationError('No file: send the text field evidenceType, then the file in the multipart field "file".', [{ path: 'body.file', message: 'is required' }]);
    },
  );

  typed.post(
    '/submit',
    {
      schema: {
        operationId: 'submitCapture',
        summary: 'Submit the evidence for automated checks',
        description: 'No body, or {}. Every required piece must be uploaded; the case moves to EvidenceUploaded and its checks are queued.',
        tags: ['capture'],
        security: captureSecurity,
        body: z.strictObject({}).nullish(),
        response: {
          200: z.object({ caseId: z.uuid(), status: caseStatusSchema }),
          ...problemResponses({ 400: 'VALIDATION_ERROR: evidence missing (named)', ...CAPTURE_ERRORS, 409: 'INVALID_CASE_STATE: already submitted' }),
        },
      },
    },
    async (request) => {
      const session = await authenticateCaptureToken(db, bearerCredential(request));
      const submitted = await db.transaction((tx) => submitEvidence(tx, session, { correlationId: request.id, now: clock(), checksAttempts: options.checksAttempts }));
      options.afterSubmit();
      return submitted;
    },
  );

  typed.get(
    '/status',
    {
      schema: {
        operationId: 'getCaptureStatus',
        summary: 'What is uploaded, what is missing, and where the case stands',
        tags: ['capture'],
        security: captureSecurity,
        response: {
          200: z.object({
            caseId: z.uuid(),
            status: caseStatusSchema,
            documentType: documentTypeSchema,
            expiresAt: z.string(),
            requiredEvidence: z.array(evidenceTypeSchema),
            uploaded: z.array(
              z.object({ evidenceId: z.uuid(), evidenceType: evidenceTypeSchema, contentType: z.string(), fileSizeBytes: z.number().int(), sha256Hash: z.string(), uploadedAt: z.string() }),
            ),
            missing: z.array(evidenceTypeSchema),
            livenessChallenge: z
              .object({
                instructions: z.string(),
                blink: z.boolean(),
                headTurnMinYawDegrees: z.number(),
                minDurationSeconds: z.number(),
                maxDurationSeconds: z.number(),
                headTurnSide: z
                  .enum(['left', 'right'])
                  .nullable()
                  .meta({ description: "The side (the user's own left or right) the head must turn to, drawn at random for this case; a video turning the other way is not live" }),
              })
              .describe('What the app should ask the user to do while recording the LivenessVideo; the on-CPU liveness check looks for exactly these signals.'),
            tenantName: z.string().meta({ description: 'The partner asking for the verification' }),
            returnUrl: z.string().nullable().meta({ description: "Where the partner wants the user sent after submit (the case's returnUrl)" }),
            consentGiven: z.boolean().meta({ description: 'Whether POST /consent was recorded for this case' }),
          }),
          ...problemResponses({ 401: CAPTURE_ERRORS[401], 429: CAPTURE_ERRORS[429] }),
        },
      },
    },
    async (request) => {
      const session = await authenticateCaptureToken(db, bearerCredential(request));
      return { ...(await captureStatus(db, session)), ...(await captureContext(db, session.caseId)) };
    },
  );
};
