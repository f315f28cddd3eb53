import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { MailSettings } from './config.js';

/** One message as the transport sends it: already rendered, with its stable Message-ID. */
export interface OutgoingMail {
  messageId: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  language: string;
  /** When it was asked for (the Date header): the same on every resend. */
  date: Date;
  /** A name for the file the embedded default writes, unique per message. */
  fileStem: string;
}

export interface MailTransport {
  readonly kind: 'smtp' | 'file';
  /** Resolves once the server accepted the message (or the file is written); throws otherwise. */
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

export interface MailTransportOptions {
  logger: { info(object: object, message: string): void };
  /** Certificate authorities the SMTP server's certificate is checked against besides the system's (a private CA, or tests). */
  ca?: string | Buffer;
}

/** A failure retrying cannot fix: the server refused the message or its recipient for good (5xx). */
export function isPermanentSmtpFailure(error: unknown): boolean {
  const code = (error as { responseCode?: unknown } | null)?.responseCode;
  return typeof code === 'number' && code >= 500 && code < 600 && code !== 530 && code !== 535;
}

/**
 * SMTP through nodemailer when SMTP_URL is set: smtp:// must upgrade with STARTTLS (requireTLS,
 * so credentials never cross in the clear), smtps:// is TLS from the start. Without it, each
 * message becomes an RFC 5322 .eml file in mailDir and one log line names it.
 */
export function createMailTransport(settings: MailSettings, options: MailTransportOptions): MailTransport {
  const envelope = (mail: OutgoingMail) => ({
    from: settings.from,
    to: mail.to,
    ...(settings.replyTo ? { replyTo: settings.replyTo } : {}),
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    messageId: mail.messageId,
    date: mail.date,
    headers: { 'Content-Language': mail.language, 'Auto-Submitted': 'auto-generated' },
  });
  if (settings.smtpUrl) {
    const secure = settings.smtpUrl.startsWith('smtps:');
    const transporter = nodemailer.createTransport({
      url: settings.smtpUrl,
      secure,
      requireTLS: !secure,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
      ...(options.ca ? { tls: { ca: options.ca } } : {}),
    });
    return {
      kind: 'smtp',
      async send(mail) {
        await transporter.sendMail(envelope(mail));
      },
      close: () => transporter.close(),
    };
  }
  const writer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  let madeDir: Promise<unknown> | undefined;
  return {
    kind: 'file',
    async send(mail) {
      const info = await writer.sendMail(envelope(mail));
      madeDir ??= mkdir(settings.mailDir, { recursive: true, mode: 0o700 });
      await madeDir;
      // Named by the message, written whole then renamed: a resend replaces the file, never a second copy or half a file.
      const file = join(settings.mailDir, `${mail.fileStem}.eml`);
      await writeFile(`${file}.tmp`, info.message as Buffer, { mode: 0o600 });
      await rename(`${file}.tmp`, file);
      options.logger.info({ file, subject: mail.subject }, `mail written to ${file}: ${mail.subject}`);
    },
    close: () => writer.close(),
  };
}
