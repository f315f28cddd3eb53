import { resolveDataDir } from '@svc/db';
import { createMailTransport, MAIL_JOB, mailSettings, type MailTransport } from '@svc/mailer';
import { queueDepth, wakeOnNotify, type Listen, type QueueWorker } from '@svc/outbox';
import type { ServiceMetrics } from '@svc/service-kit';
import type { FxConfig } from '../config.js';
import type { FxExecutor } from '../db/executor.js';
import { jobs } from '../db/schema.js';
import { FX_JOBS_CHANNEL, type FxMailer } from '../domain/mail/fx-mailer.js';

export interface MailWorkerWiring {
  db: FxExecutor;
  mailer: FxMailer;
  transport: MailTransport;
  listen?: Listen;
  clock?: () => Date;
  logger: { info(object: object, message: string): void; warn(object: object, message: string): void; error(object: object, message: string): void };
  metrics?: Pick<ServiceMetrics, 'watchQueue' | 'queueAttemptRecorder'>;
  pollIntervalMs?: number;
}

/** SMTP_URL, else .eml files under $DATA_DIR/fx/mail; `ca`: certificate authorities besides the system's (a private mail server; tests). */
export function fxMailTransport(config: FxConfig, logger: { info(object: object, message: string): void }, ca?: string): MailTransport {
  return createMailTransport(mailSettings(config, resolveDataDir(config.DATA_DIR), 'fx'), { logger, ...(ca ? { ca } : {}) });
}

/**
 * fx's mail worker on its job table, built the same way in the API process and the standalone
 * worker: retries on the mail schedule (an SMTP outage of hours is waited out), woken by the
 * commit of a queued mail, its depth and attempts by outcome reported as the `mail` queue.
 */
export function fxMailWorkerFor(config: FxConfig, wiring: MailWorkerWiring): QueueWorker {
  wiring.metrics?.watchQueue('mail', async () => (await queueDepth(wiring.db, jobs, { openOnly: true })).filter((row) => row.kind === MAIL_JOB));
  const worker = wiring.mailer.createWorker({
    db: wiring.db,
    transport: wiring.transport,
    retryScheduleMs: config.MAIL_RETRY_SCHEDULE_MS,
    jitter: 0.1,
    leaseMs: config.DELIVERY_LEASE_MS,
    workerId: 'fx-mail',
    logger: wiring.logger,
    ...(wiring.clock ? { clock: wiring.clock } : {}),
    ...(wiring.metrics ? { onAttemptRecorded: wiring.metrics.queueAttemptRecorder('mail') } : {}),
    ...(wiring.pollIntervalMs ? { pollIntervalMs: wiring.pollIntervalMs } : {}),
  });
  return wiring.listen ? wakeOnNotify(worker, wiring.listen, FX_JOBS_CHANNEL, wiring.logger) : worker;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** fx's mailer (queue a mail in a transaction) and its worker (tests run it by hand: app.inject never starts it). */
    fxMail: { mailer: FxMailer; worker: QueueWorker };
  }
}
