import { join } from 'node:path';
import { z } from 'zod';

const emptyAsUndefined = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

const smtpUrl = z.preprocess(
  emptyAsUndefined,
  z
    .url({ protocol: /^smtps?$/, error: 'must be smtp://user:pass@host:587 (STARTTLS) or smtps://user:pass@host:465 (TLS)' })
    .optional(),
);

/** `"Name" <address>` or a bare address, as nodemailer and RFC 5322 take it. */
const mailbox = z
  .string()
  .trim()
  .refine((value) => /^(?:"[^"\r\n]*"\s*|[^<>"\r\n]*)?<[^<>\s@]+@[^<>\s@]+>$|^[^<>\s@"]+@[^<>\s@"]+$/.test(value), { message: 'must be an address or "Name" <address>' });

/**
 * The mail settings every service takes; spread into its environment schema so they are parsed
 * once with the rest. Without SMTP_URL mails are written as .eml files (the embedded default).
 */
export function mailEnvironmentVariables(defaultFrom: string) {
  return {
    SMTP_URL: smtpUrl,
    MAIL_FROM: z.preprocess(emptyAsUndefined, mailbox.default(defaultFrom)),
    MAIL_REPLY_TO: z.preprocess(emptyAsUndefined, mailbox.optional()),
  };
}

export interface MailSettings {
  /** smtp:// (STARTTLS required) or smtps://; absent: .eml files in mailDir. */
  smtpUrl?: string | undefined;
  from: string;
  replyTo?: string | undefined;
  /** Where the embedded default writes: $DATA_DIR/<service>/mail. */
  mailDir: string;
}

/** The settings from a service's parsed config and its data directory. */
export function mailSettings(config: { SMTP_URL?: string | undefined; MAIL_FROM: string; MAIL_REPLY_TO?: string | undefined }, dataDir: string, service: string): MailSettings {
  return { smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, replyTo: config.MAIL_REPLY_TO, mailDir: join(dataDir, service, 'mail') };
}

/** The domain of the sender's address: Message-IDs are made unique under it (RFC 5322 §3.6.4). */
export function senderDomain(from: string): string {
  const address = /<([^>]+)>/.exec(from)?.[1] ?? from;
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}
