import { and, count, eq, inArray, isNotNull, min } from 'drizzle-orm';
import { z } from 'zod';
import { createJobWorker, enqueueJobs, notifyWorkers, PermanentJobError, type AnyDatabase, type JobTable, type JobWorker, type QueueWorkerSettings, type Transaction } from '@svc/outbox';
import { senderDomain } from './config.js';
import { renderMail, type MailContent } from './render.js';
import { isPermanentSmtpFailure, type MailTransport } from './transport.js';

/** The job kind of a mail on a service's job table. */
export const MAIL_JOB = 'send-mail';

/** What a template gets besides its data: links are made absolute from PUBLIC_BASE_URL here, never by the caller. */
export interface TemplateContext {
  link: (pathAndFragment: string) => string;
  language: string;
}

/**
 * A service's mails: for each template, its content in each language it is written in. The
 * first language of `languages` is the fallback for a recipient whose language has no text.
 */
export interface MailCatalog<Templates extends object, Language extends string> {
  languages: readonly [Language, ...Language[]];
  templates: { [Name in keyof Templates]: Record<Language, (data: Templates[Name], context: TemplateContext) => MailContent> };
}

export interface MailRequest<Templates extends object, Name extends keyof Templates & string = keyof Templates & string> {
  to: string;
  /** The recipient's language (last chosen, else the request's Accept-Language); unknown ones fall back to the catalog's first. */
  language: string | null | undefined;
  template: Name;
  data: Templates[Name];
  /** What the mail is about (a user id), to find its mails in the job table. */
  subjectId?: string | null;
}

/** Seals the queued payload: it may carry the one link the mail exists to deliver (a reset token). */
export interface PayloadBox {
  encrypt(plaintext: string, associatedData?: string): string;
  decrypt(sealed: string, associatedData?: string): string;
}

export interface MailerOptions<Templates extends object, Language extends string> {
  table: JobTable;
  catalog: MailCatalog<Templates, Language>;
  /** PUBLIC_BASE_URL: every link in a mail starts with it. */
  publicBaseUrl: string;
  /** MAIL_FROM, for the Message-ID's domain. */
  from: string;
  box: PayloadBox;
  /** NOTIFY channel the service's job workers listen on, so a committed mail is sent at once. */
  notifyChannel?: string;
  /** Attempts before a mail is given up (default 40: with the default schedule, about two days). */
  maxAttempts?: number;
}

interface QueuedMail {
  to: string;
  language: string;
  template: string;
  data: unknown;
}

const PAYLOAD_CONTEXT = 'mail';

/** Retry delays of a mail: quick at first, then an SMTP outage of hours is waited out (the last repeats). */
export const DEFAULT_MAIL_RETRY_SCHEDULE_MS = [0, 10_000, 60_000, 300_000, 900_000, 3_600_000] as const;

export interface Mailer<Templates extends object> {
  /** Queues one mail in the caller's transaction; it is sent only if that transaction commits. Returns its Message-ID. */
  enqueue<Name extends keyof Templates & string>(tx: AnyDatabase | Transaction, request: MailRequest<Templates, Name>, now: Date): Promise<string>;
  /** The language a mail to this recipient is written in. */
  languageOf(requested: string | null | undefined): string;
  /** The worker that renders and sends queued mails with retries; share the service's job table and wake channel. */
  createWorker(options: MailWorkerOptions): JobWorker;
}

export interface MailWorkerOptions extends Omit<QueueWorkerSettings, 'retryScheduleMs'> {
  db: AnyDatabase;
  transport: MailTransport;
  retryScheduleMs?: readonly number[];
}

export function messageIdOf(jobId: string, from: string): string {
  return `<mail-${jobId}@${senderDomain(from)}>`;
}

export function createMailer<Templates extends object, Language extends string>(options: MailerOptions<Templates, Language>): Mailer<Templates> {
  const { catalog } = options;
  const base = options.publicBaseUrl.replace(/\/+$/, '');
  // A language tag or a whole Accept-Language header: its entries in order of preference (q), the first one written wins.
  const languageOf = (requested: string | null | undefined): Language => {
    const wanted = (requested ?? '')
      .split(',')
      .map((entry, index) => {
        const [tag = '', ...parameters] = entry.trim().toLowerCase().split(';');
        const q = Number(parameters.find((parameter) => parameter.trim().startsWith('q='))?.trim().slice(2) ?? '1');
        return { tag: tag.trim(), q: Number.isFinite(q) ? q : 0, index };
      })
      .filter((entry) => entry.tag !== '' && entry.q > 0)
      .sort((a, b) => b.q - a.q || a.index - b.index);
    for (const { tag } of wanted) {
      const match = catalog.languages.find((language) => tag === language || tag.startsWith(`${language}-`));
      if (match) return match;
    }
    return catalog.languages[0];
  };

  const render = (mail: QueuedMail) => {
    const byLanguage = Object.hasOwn(catalog.templates, mail.template) ? (catalog.templates as Record<string, Record<string, (data: unknown, context: TemplateContext) => MailContent>>)[mail.template] : undefined;
    if (!byLanguage) throw new PermanentJobError(`unknown mail template ${mail.template}`);
    const language = languageOf(mail.language);
    const write = byLanguage[language] as (data: unknown, context: TemplateContext) => MailContent;
    return { language, ...renderMail(write(mail.data, { language, link: (path) => `${base}${path.startsWith('/') ? '' : '/'}${path}` }), language) };
  };

  return {
    languageOf,
    async enqueue(tx, request, now) {
      const payload: QueuedMail = { to: request.to, language: languageOf(request.language), template: request.template, data: request.data };
      // Rendered now only to fail in the caller's transaction on a template that cannot be written, not later in the worker.
      render(payload);
      const [id] = await enqueueJobs(
        tx,
        options.table,
        [{ kind: MAIL_JOB, subjectId: request.subjectId ?? null, payload: options.box.encrypt(JSON.stringify(payload), PAYLOAD_CONTEXT), maxAttempts: options.maxAttempts ?? 40, runAt: now }],
        now,
      );
      if (options.notifyChannel) await notifyWorkers(tx, options.notifyChannel);
      return messageIdOf(id as string, options.from);
    },
    createWorker({ db, transport, retryScheduleMs, ...settings }) {
      return createJobWorker({
        ...settings,
        db,
        table: options.table,
        retryScheduleMs: retryScheduleMs ?? DEFAULT_MAIL_RETRY_SCHEDULE_MS,
        workerId: settings.workerId ?? 'mail',
        handlers: {
          async [MAIL_JOB](job) {
            let mail: QueuedMail;
            try {
              mail = JSON.parse(options.box.decrypt(job.payload, PAYLOAD_CONTEXT)) as QueuedMail;
            } catch {
              throw new PermanentJobError('the queued mail cannot be opened (SECRETS_KEY changed?)');
            }
            const rendered = render(mail);
            try {
              await transport.send({
                messageId: messageIdOf(job.id, options.from),
                to: mail.to,
                ...rendered,
                date: job.createdAt,
                fileStem: `${job.createdAt.toISOString().replace(/[:.]/g, '-')}_${mail.template}_${job.id}`,
              });
            } catch (error) {
              if (isPermanentSmtpFailure(error)) throw new PermanentJobError(`the mail server refused the message: ${(error as Error).message}`);
              throw error;
            }
          },
        },
      });
    },
  };
}

export interface MailBacklog {
  /** Mails waiting or being sent. */
  queued: number;
  /** Of those, mails whose last attempt failed (the server is down or refusing): the health check's degraded. */
  retrying: number;
  oldestQueuedAt: Date | null;
}

/** What /health reports: a mail that failed and waits for its next attempt means the transport is not delivering. */
export async function mailBacklog(db: AnyDatabase, table: JobTable): Promise<MailBacklog> {
  const open = and(eq(table.kind, MAIL_JOB), inArray(table.status, ['pending', 'in_flight']));
  const [all] = await db.select({ queued: count(), oldest: min(table.createdAt) }).from(table).where(open);
  const [failing] = await db.select({ retrying: count() }).from(table).where(and(open, isNotNull(table.lastError)));
  return { queued: all?.queued ?? 0, retrying: failing?.retrying ?? 0, oldestQueuedAt: all?.oldest ?? null };
}

/** The `mail` member of a service's /health checks (its OpenAPI schema); null while the database is down. */
export function mailHealthSchema(service: string) {
  return z
    .object({
      transport: z.enum(['smtp', 'file']).describe(`smtp: SMTP_URL; file: .eml files under $DATA_DIR/${service}/mail`),
      queued: z.number().int().describe('Mails waiting or being sent'),
      retrying: z.number().int().describe('Of those, mails whose last attempt failed (the mail server is down or refusing): degraded while above 0'),
      oldestQueuedAt: z.string().nullable(),
    })
    .nullable()
    .describe('The mail queue; null when the database is down');
}
