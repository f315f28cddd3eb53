import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { ERRORS, Server, type Upload } from '@tus/server';
import { InternalError, NotFoundError, PayloadTooLargeError, ProblemError, toProblemDocument, ValidationError } from '@svc/problem-json';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { assertCapturing, authenticateCaptureToken, type CaptureSession } from '../../domain/capture/capture-sessions.js';
import { maxBytesFor, cleanFileName } from '../../domain/capture/evidence-upload.js';
import { PartialUploadStore, tusError } from '../../domain/capture/partial-uploads.js';
import { takeEvidence } from '../../domain/capture/take-evidence.js';
import { EVIDENCE_TYPES, type EvidenceType } from '../../domain/cases/case-states.js';
import { bearerCredential } from '../../plugins/authentication.js';
import type { CaptureRouteOptions } from './capture.js';

export const UPLOADS_PATH = '/uploads';

/** tus's Upload-Metadata: comma-separated `key base64value` pairs. */
function uploadMetadata(header: string | undefined): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const pair of (header ?? '').split(',')) {
    const [key, value] = pair.trim().split(' ');
    if (key) entries[key] = value ? Buffer.from(value, 'base64').toString('utf8') : '';
  }
  return entries;
}

function evidenceTypeOf(value: string | undefined): EvidenceType {
  if (!value || !(EVIDENCE_TYPES as readonly string[]).includes(value)) {
    throw new ValidationError(`Upload-Metadata must name evidenceType, one of ${EVIDENCE_TYPES.join(', ')}.`, [{ path: 'headers.upload-metadata', message: 'evidenceType missing or unknown' }]);
  }
  return value as EvidenceType;
}

/** A refusal raised inside tus's own handlers, answered as a problem document. */
function tusProblem(error: unknown): { status_code: number; body: string } {
  // Anything else is answered without its message, which may name internals.
  const problem = error instanceof ProblemError ? error : new InternalError();
  return { status_code: problem.status, body: JSON.stringify(toProblemDocument(problem)) };
}

/**
 * tus 1.0 resumable uploads of evidence (docs/capture-page.md): creation, then PATCHes that
 * each append from the offset the server holds, so a dropped connection resumes instead of
 * starting over. Every request is authenticated by the capture token here, before tus sees it;
 * an upload is found only by the session that created it. When the last byte arrives the piece
 * is taken exactly like a one-request upload, and the answer to that PATCH is its evidence record.
 * There is no GET: partial bytes are never readable.
 */
export const captureUploadRoutes: FastifyPluginAsync<CaptureRouteOptions> = async (app, options) => {
  const { db, clock, limits } = options;
  const sessions = new WeakMap<IncomingMessage, { session: CaptureSession; correlationId: string }>();
  const sessionOf = (raw: IncomingMessage | undefined) => {
    const found = raw ? sessions.get(raw) : undefined;
    if (!found) throw tusError(ERRORS.UNKNOWN_ERROR);
    return found;
  };
  const nodeRequest = (req: { runtime?: { node?: { req: IncomingMessage } } }) => req.runtime?.node?.req;

  const store = new PartialUploadStore(join(options.storage.spoolDir, 'partial'), options.storage.keyRing, (upload: Upload) => {
    const { session } = sessionOf(pending.get(upload.id));
    pending.delete(upload.id);
    const metadata = upload.metadata ?? {};
    return {
      tenantId: session.tenantId,
      caseId: session.caseId,
      sessionId: session.sessionId,
      evidenceType: evidenceTypeOf(metadata.evidenceType ?? undefined),
      fileName: cleanFileName(metadata.filename ?? undefined, metadata.evidenceType ?? 'upload'),
      expiresAt: session.expiresAt.toISOString(),
    };
  });
  // The request that names each new upload, for the store to bind it to that request's session.
  const pending = new Map<string, IncomingMessage>();

  const tus = new Server({
    path: `${app.prefix}${UPLOADS_PATH}`,
    datastore: store,
    relativeLocation: true,
    maxSize: Math.max(limits.maxImageBytes, limits.maxVideoBytes),
    // Same origin only: the page and the API share it.
    allowedOrigins: [],
    namingFunction: (req) => {
      const id = PartialUploadStore.newId();
      const raw = nodeRequest(req as never);
      if (raw) pending.set(id, raw);
      return id;
    },
    onUploadFinish: async (req, upload) => {
      const { session, correlationId } = sessionOf(nodeRequest(req as never));
      const record = await store.record(upload.id);
      if (!record || record.finished) throw tusError(ERRORS.FILE_NOT_FOUND);
      let taken: Awaited<ReturnType<typeof takeEvidence>>;
      try {
        taken = await takeEvidence(
          db,
          options.storage,
          session,
          { evidenceType: record.evidenceType, fileName: record.fileName, stream: store.openPlaintext(record), wasTruncated: () => false, signal: new AbortController().signal },
          { limits, correlationId, clock, uploadGraceMs: options.uploadGraceMs, qualityHints: options.qualityHints },
        );
      } catch (error) {
        if (!(error instanceof ProblemError)) app.log.error({ err: error }, 'taking a finished resumable upload failed');
        // Refused: the part is dropped, and a retry starts a new upload.
        await store.remove(upload.id);
        throw tusError(tusProblem(error));
      }
      await store.markFinished(record);
      return { status_code: 200, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }, body: JSON.stringify(taken) };
    },
  });

  // tus reads the body itself: Fastify must leave it unread.
  app.addContentTypeParser('application/offset+octet-stream', (_request, _payload, done) => done(null));

  const authenticate = async (request: FastifyRequest) => {
    const session = await authenticateCaptureToken(db, bearerCredential(request));
    sessions.set(request.raw, { session, correlationId: request.id });
    return session;
  };
  /** The upload named in the path, if it is this session's; anyone else's is not found. */
  const ownUpload = async (request: FastifyRequest<{ Params: { id: string } }>, session: CaptureSession) => {
    const record = await store.record(request.params.id);
    if (!record || record.caseId !== session.caseId || record.sessionId !== session.sessionId) throw new NotFoundError('No such upload for this capture session.');
    return record;
  };
  const handOver = async (request: FastifyRequest, reply: { hijack(): void; raw: ServerResponse }) => {
    reply.hijack();
    await tus.handle(request.raw, reply.raw);
  };
  const hidden = { schema: { hide: true } };

  app.options(UPLOADS_PATH, hidden, (request, reply) => handOver(request, reply));
  app.post(UPLOADS_PATH, hidden, async (request, reply) => {
    const session = await authenticate(request);
    assertCapturing(session, clock());
    const type = evidenceTypeOf(uploadMetadata(request.headers['upload-metadata'] as string | undefined).evidenceType);
    const length = Number(request.headers['upload-length']);
    const maxBytes = maxBytesFor(type, limits);
    if (Number.isFinite(length) && length > maxBytes) throw new PayloadTooLargeError(`${type} may be at most ${maxBytes} bytes (${(maxBytes / 1_048_576).toFixed(0)} MB).`);
    await handOver(request, reply);
  });
  app.head<{ Params: { id: string } }>(`${UPLOADS_PATH}/:id`, hidden, async (request, reply) => {
    await ownUpload(request, await authenticate(request));
    await handOver(request, reply);
  });
  app.delete<{ Params: { id: string } }>(`${UPLOADS_PATH}/:id`, hidden, async (request, reply) => {
    await ownUpload(request, await authenticate(request));
    await handOver(request, reply);
  });
  app.patch<{ Params: { id: string } }>(
    `${UPLOADS_PATH}/:id`,
    {
      ...hidden,
      // Before the token is checked, as for POST /evidence: a refused chunk costs nothing.
      onRequest: (request, reply, done) => {
        const release = options.uploadSlots.acquire(request.ip);
        reply.raw.once('close', release);
        done();
      },
    },
    async (request, reply) => {
      const session = await authenticate(request);
      await ownUpload(request, session);
      assertCapturing(session, clock());
      await handOver(request, reply);
    },
  );

  const sweeper = setInterval(() => void store.sweep(clock()).catch((error: unknown) => app.log.warn({ err: error }, 'partial upload sweep failed')), 60_000);
  sweeper.unref();
  app.addHook('onClose', () => clearInterval(sweeper));
};
