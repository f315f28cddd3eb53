import { startSmtpSink, type SmtpSink } from '@svc/mailer/testing';
import { afterAll, beforeAll, expect } from 'vitest';
import { buildTestApp, type TestApp } from './helpers.js';

export const DASHBOARD_BASE = 'http://localhost:3002';
export const DEVELOPER_PASSWORD = 'a quiet river at dawn 7';

/** fx with a real SMTP sink on loopback, mailing links for the dashboard's origin. */
export async function startDeveloperApp(options: { env?: Record<string, string>; clock?: () => Date } = {}): Promise<{ test: TestApp; sink: SmtpSink; close(): Promise<void> }> {
  const sink = await startSmtpSink();
  const test = await buildTestApp({ SMTP_URL: sink.url, PUBLIC_BASE_URL: DASHBOARD_BASE, MAIL_RETRY_SCHEDULE_MS: '0,50', ...options.env }, { smtpCa: sink.certPem, ...(options.clock ? { clock: options.clock } : {}) });
  return {
    test,
    sink,
    async close() {
      await test.close();
      await sink.stop();
    },
  };
}

/** Signs up a new address, opens the mailed link, and returns the session cookie and the first client's keys. */
export async function verifiedDeveloper(test: TestApp, sink: SmtpSink, tag: string, language = 'en') {
  const email = `dev-${tag}-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;
  await test.app.inject({ method: 'POST', url: '/api/v1/developer/signup', payload: { email, password: DEVELOPER_PASSWORD, language } });
  let token: string | undefined;
  await expect
    .poll(async () => {
      await test.app.fxMail.worker.runOnce();
      const mail = sink.messages.find((message) => !Array.isArray(message.to) && message.to?.text === email);
      token = /verify#(fxv_[0-9a-f]{64})/.exec(mail?.text ?? '')?.[1];
      return token !== undefined;
    }, { timeout: 30_000 })
    .toBe(true);
  const verified = await test.app.inject({ method: 'POST', url: '/api/v1/developer/verify', payload: { token } });
  expect(verified.statusCode, verified.body).toBe(200);
  return { email, cookie: String(verified.headers['set-cookie']).split(';')[0] as string, keys: verified.json<{ client: { id: string; publicKey: string; privateKey: string } }>().client };
}

/** Starts fx with an SMTP sink for the enclosing describe; the getters answer inside its tests. */
export function useDeveloperApp(options: Parameters<typeof startDeveloperApp>[0] = {}) {
  let running: Awaited<ReturnType<typeof startDeveloperApp>> | undefined;
  beforeAll(async () => {
    running = await startDeveloperApp(options);
  });
  afterAll(async () => {
    await running?.close();
  });
  const current = () => {
    if (!running) throw new Error('the developer app is not started');
    return running;
  };
  return {
    app: () => current().test,
    sink: () => current().sink,
    developer: (tag: string, language?: string) => verifiedDeveloper(current().test, current().sink, tag, language),
    /** The first mail to `to` whose subject passes `subject`, after running the mail worker until it arrives. */
    async mailTo(to: string, subject: (subject: string) => boolean = () => true) {
      const found = () => current().sink.messages.find((message) => !Array.isArray(message.to) && message.to?.text === to && subject(message.subject ?? ''));
      await expect
        .poll(async () => {
          await current().test.app.fxMail.worker.runOnce();
          return found() !== undefined;
        }, { timeout: 30_000 })
        .toBe(true);
      return found() as NonNullable<ReturnType<typeof found>>;
    },
  };
}
