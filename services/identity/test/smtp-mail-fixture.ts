import { startSmtpSink, type SmtpSink } from '@svc/mailer/testing';
import type { ParsedMail } from 'mailparser';
import { expect } from 'vitest';
import { makeCertificate } from './certificates.js';
import { buildTestApp, type TestApp } from './helpers.js';

export const MAIL_FROM = '"Acme Verification" <no-reply@mail.example.test>';

/** identity sending through a real SMTP server on loopback (STARTTLS and AUTH on), links on https://kyc.example.test. */
export async function startMailingApp(clock: () => Date, env: Record<string, string> = {}): Promise<{ test: TestApp; sink: SmtpSink }> {
  const certificate = await makeCertificate({ cn: 'localhost', dnsNames: ['localhost'] });
  const sink = await startSmtpSink({ certPem: certificate.certPem, keyPem: certificate.keyPem });
  const test = await buildTestApp(
    { SMTP_URL: sink.url, MAIL_FROM, PUBLIC_BASE_URL: 'https://kyc.example.test', MAIL_RETRY_SCHEDULE_MS: '0,1000', ...env },
    { clock, smtpCa: certificate.certPem },
  );
  return { test, sink };
}

/** Sends what is due until a mail to `to` with this subject has arrived. */
export async function mailArriving(test: TestApp, sink: SmtpSink, to: string, subject: string | RegExp): Promise<ParsedMail> {
  let found: ParsedMail | undefined;
  await expect
    .poll(async () => {
      await test.worker.sendMails();
      found = sink.messages.find((message) => message.to && !Array.isArray(message.to) && message.to.text === to && (typeof subject === 'string' ? message.subject === subject : subject.test(message.subject ?? '')));
      return found !== undefined;
    }, { timeout: 30_000 })
    .toBe(true);
  return found as ParsedMail;
}
