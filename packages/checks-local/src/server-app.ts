import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { DocumentType, EvidenceBytes } from './contract.js';
import { ChecksUnavailableError, type LocalChecksProvider } from './provider.js';
import { readEvidenceForm, type EvidenceForm, type FormSpec } from './server-evidence.js';
import { installProblemAnswers } from './server-problems.js';

export interface ChecksServerOptions {
  /** The provider the routes call; its owner closes it (after the app). */
  checks: LocalChecksProvider;
  /** Fastify's logger option: false for none, or pino options. */
  logger?: FastifyServerOptions['logger'];
  /** Largest file per part (default 50 MB, identity's largest upload, the liveness video). */
  maxFileBytes?: number;
  /**
   * Check requests held at once, uploads included (default 16). Each holds its files in memory,
   * so this bounds memory; past it a request is refused with 503 before its body is read.
   */
  maxRequestsInFlight?: number;
}

const DOCUMENT_TYPES: readonly DocumentType[] = ['SyrianNationalId', 'SyrianPassport'];

/** The three endpoints' parts: identity's HTTP provider contract (README, CHECKS_OCR_URL…). */
const FORMS = {
  ocr: {
    fields: { documentType: { required: true, allowed: DOCUMENT_TYPES } },
    files: { front: { required: true, kind: 'image' }, back: { required: false, kind: 'image' } },
  },
  faceMatch: {
    fields: {},
    files: { document: { required: true, kind: 'image' }, selfie: { required: true, kind: 'image' } },
  },
  // `document` is ours, not identity's: with it, liveness can also check the video shows the document's face.
  liveness: {
    // The side the user was asked to turn their head to (their own left or right); without it, any blink or turn will do.
    fields: { headTurnSide: { required: false, allowed: ['left', 'right'] } },
    files: { video: { required: true, kind: 'video' }, document: { required: false, kind: 'image' } },
  },
} satisfies Record<string, FormSpec>;

const MEGABYTE = 1024 * 1024;

/** A part readEvidenceForm has already made sure of (required parts are present when it returns). */
function fileOf(form: EvidenceForm, name: string): EvidenceBytes {
  const file = form.files.get(name);
  if (!file) throw new Error(`required part ${name} missing after validation`);
  return file;
}

/**
 * The checks over HTTP: `POST /ocr`, `/face-match`, `/liveness` take multipart evidence and answer
 * the model's JSON, 422 MANUAL_REVIEW_REQUIRED when a person must decide, 400/413/415 for a body
 * they cannot read, 503 when busy; `GET /health` says whether the models are loaded. Never listens:
 * server.ts does, and tests listen on port 0.
 */
export async function buildChecksServer(options: ChecksServerOptions): Promise<FastifyInstance> {
  const { checks } = options;
  const maxFileBytes = options.maxFileBytes ?? 50 * MEGABYTE;
  const maxRequestsInFlight = options.maxRequestsInFlight ?? 16;
  const app = Fastify({
    logger: options.logger ?? false,
    // A whole upload of the largest file has this long; a trickling client does not hold memory forever.
    requestTimeout: 120_000,
  });
  installProblemAnswers(app);
  await app.register(multipart, { limits: { fileSize: maxFileBytes }, throwFileSizeLimit: true });

  let inFlight = 0;
  /** Counted from the handler's start (before the body is read: multipart bodies stream) to its end. */
  async function bounded<T>(run: () => Promise<T>): Promise<T> {
    if (inFlight >= maxRequestsInFlight) throw new ChecksUnavailableError(`${maxRequestsInFlight} check requests are already in progress`);
    inFlight += 1;
    try {
      return await run();
    } finally {
      inFlight -= 1;
    }
  }

  const read = (request: FastifyRequest, spec: FormSpec) => readEvidenceForm(request, spec, maxFileBytes);

  app.post('/ocr', (request) =>
    bounded(async () => {
      const form = await read(request, FORMS.ocr);
      return checks.ocr({ documentType: form.fields.get('documentType') as DocumentType, front: fileOf(form, 'front'), back: form.files.get('back') ?? null });
    }),
  );

  app.post('/face-match', (request) =>
    bounded(async () => {
      const form = await read(request, FORMS.faceMatch);
      return checks.faceMatch({ document: fileOf(form, 'document'), selfie: fileOf(form, 'selfie') });
    }),
  );

  app.post('/liveness', (request) =>
    bounded(async () => {
      const form = await read(request, FORMS.liveness);
      const side = form.fields.get('headTurnSide') as 'left' | 'right' | undefined;
      return checks.liveness({ video: fileOf(form, 'video'), document: form.files.get('document') ?? null, challenge: side ? { headTurnSide: side } : {} });
    }),
  );

  app.get('/health', async (_request, reply) => {
    const status = await checks.status();
    void reply.header('cache-control', 'no-store');
    if (status.ready) return { status: 'ok', models: status.models };
    return reply.code(503).send({ status: 'unavailable', problems: status.problems, models: status.models });
  });

  return app;
}
