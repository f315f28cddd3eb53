import { startSmtpSink, type SmtpSink } from '@svc/mailer/testing';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, expect } from 'vitest';
import { makeCertificate } from './certificates.js';
import { buildTestApp, manualClock, type TestApp } from './helpers.js';

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

export interface MailingSuite {
  readonly test: TestApp;
  readonly sink: SmtpSink;
  readonly clock: ReturnType<typeof manualClock>;
  /** A new network address on each call, under `network`: the per-IP limit is not what most tests are about. */
  readonly remoteAddress: () => string;
}

/** Registers the suite's hooks: a mailing app and its SMTP server on a hand-moved clock, both closed after the suite. */
export function useMailingApp(network: string, env: Record<string, string> = {}): MailingSuite {
  const clock = manualClock(new Date('2026-11-28T10:00:00Z'));
  let started: { test: TestApp; sink: SmtpSink } | undefined;
  let nextAddress = 1;
  beforeAll(async () => {
    started = await startMailingApp(clock.now, env);
  });
  afterAll(async () => {
    await started?.test.close();
    await started?.sink.stop();
  });
  const running = () => {
    if (!started) throw new Error('the mailing app starts in beforeAll');
    return started;
  };
  return {
    get test() {
      return running().test;
    },
    get sink() {
      return running().sink;
    },
    clock,
    remoteAddress: () => `${network}.${Math.floor(nextAddress / 250)}.${(nextAddress++ % 250) + 1}`,
  };
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
