import { randomUUID } from 'node:crypto';
import type { SmtpSink } from '@svc/mailer/testing';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStaffUser } from '../src/domain/accounts/staff.js';
import { createTenant } from '../src/domain/tenants/tenants.js';
import { BASE, manualClock, PASSWORD, type TestApp } from './helpers.js';
import { SoftwareAuthenticator } from './passkey-authenticator.js';
import { authenticatorCode } from './second-factor-helpers.js';
import { mailArriving, startMailingApp } from './smtp-mail-fixture.js';

const ORIGIN = 'https://portal.example.test';
const RP_ID = 'portal.example.test';
const INTERNAL = '/api/internal/v1';
const NOTICE_EN = 'A security setting of your account changed';
const NOTICE_AR = 'تغيّر أحد إعدادات الأمان في حسابك';
type Headers = Record<string, string>;

describe("security notices to the account's own address, over a real SMTP server", () => {
  let test: TestApp;
  let sink: SmtpSink;
  const clock = manualClock(new Date('2026-11-28T10:00:00Z'));

  beforeAll(async () => {
    ({ test, sink } = await startMailingApp(clock.now, { WEBAUTHN_ORIGINS: ORIGIN, STAFF_REQUIRE_SECOND_FACTOR: 'false' }));
  });
  afterAll(async () => {
    await test?.close();
    await sink?.stop();
  });

  const call = (method: 'POST' | 'GET' | 'DELETE' | 'PUT', url: string, headers: Headers = {}, payload?: object) => test.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  const mailsTo = (to: string) => sink.messages.filter((message) => message.to && !Array.isArray(message.to) && message.to.text === to);
  const expectNotice = (mail: ParsedMail, sentence: string, link: string) => {
    expect(mail.from?.value[0]?.address).toBe('no-reply@mail.example.test');
    expect(mail.messageId).toMatch(/^<mail-[0-9a-f-]{36}@mail\.example\.test>$/);
    expect(mail.text).toContain(sentence);
    expect(mail.text).toContain(link);
    expect(mail.html).toContain(link);
  };

  async function portalUser() {
    const email = `user-${randomUUID()}@example.com`;
    await test.db.transaction((tx) => createTenant(tx, { name: 'Acme', adminEmail: email, adminPassword: PASSWORD }, clock.now()));
    const login = await call('POST', `${BASE}/portal/login`, {}, { email, password: PASSWORD });
    return { email, headers: { authorization: `Bearer ${login.json<{ sessionToken: string }>().sessionToken}` } };
  }

  async function addAuthenticator(base: string, headers: Headers) {
    const { secret } = (await call('POST', `${base}/account/second-factors/totp`, headers)).json<{ secret: string }>();
    const confirmed = await call('POST', `${base}/account/second-factors/totp/confirm`, headers, { code: authenticatorCode(secret, clock.now()) });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
  }

  it('tells a portal user of an authenticator added, recovery codes regenerated and a factor removed, in the language of each request', async () => {
    const { email, headers } = await portalUser();
    await addAuthenticator(`${BASE}/portal`, { ...headers, 'accept-language': 'en' });
    const added = await mailArriving(test, sink, email, NOTICE_EN);
    expectNotice(added, 'An authenticator app was set up as a second factor.', 'https://kyc.example.test/portal/account');
    expect(added.html).toContain('dir="ltr"');

    const regenerated = await call('POST', `${BASE}/portal/account/recovery-codes`, { ...headers, 'accept-language': 'ar' });
    expect(regenerated.statusCode, regenerated.body).toBe(200);
    const arabic = await mailArriving(test, sink, email, NOTICE_AR);
    expectNotice(arabic, 'أُنشئت رموز استرداد جديدة', 'https://kyc.example.test/portal/account');
    expect(arabic.html).toContain('dir="rtl"');
    expect(arabic.headers.get('content-language')).toBe('ar');
    // The notice carries no secret: none of the new codes is in it.
    for (const code of regenerated.json<{ recoveryCodes: string[] }>().recoveryCodes) expect(`${arabic.text}${arabic.html}`).not.toContain(code);

    const [factor] = (await call('GET', `${BASE}/portal/account/second-factors`, headers)).json<{ items: { id: string }[] }>().items;
    expect((await call('DELETE', `${BASE}/portal/account/second-factors/${factor!.id}`, headers)).statusCode).toBe(204);
    await expect.poll(async () => {
      await test.worker.sendMails();
      return mailsTo(email).some((mail) => mail.text?.includes('A second factor was removed.'));
    }, { timeout: 30_000 }).toBe(true);
  });

  it('tells a portal user of a passkey registered, once (the first factor\'s recovery codes come with it, no second notice)', async () => {
    const { email, headers } = await portalUser();
    const options = await call('POST', `${BASE}/portal/account/second-factors/passkeys/options`, headers);
    const registered = await call('POST', `${BASE}/portal/account/second-factors/passkeys`, headers, { name: 'Laptop', response: new SoftwareAuthenticator(RP_ID, ORIGIN).register(options.json()) });
    expect(registered.statusCode, registered.body).toBe(201);
    expectNotice(await mailArriving(test, sink, email, NOTICE_EN), 'A passkey was registered.', 'https://kyc.example.test/portal/account');
    await test.worker.sendMails();
    expect(mailsTo(email)).toHaveLength(1);
  });

  it("tells a reviewer at the reviewer's own address, linking to the console's security screen", async () => {
    const email = `reviewer-${randomUUID()}@example.com`;
    await test.db.transaction((tx) => createStaffUser(tx, { email, password: PASSWORD }, clock.now()));
    const login = await call('POST', `${INTERNAL}/login`, {}, { email, password: PASSWORD });
    await addAuthenticator(INTERNAL, { authorization: `Bearer ${login.json<{ sessionToken: string }>().sessionToken}` });
    expectNotice(await mailArriving(test, sink, email, NOTICE_EN), 'An authenticator app was set up as a second factor.', 'https://kyc.example.test/console/security');
  });

  it('writes later mails in the language switched to while signed in, for a portal user and a reviewer', async () => {
    const { email, headers } = await portalUser();
    const switched = await call('PUT', `${BASE}/portal/account/language`, { ...headers, 'accept-language': 'en' }, { language: 'ar' });
    expect(switched.statusCode, switched.body).toBe(204);
    // A bare API call (no Accept-Language) falls back to the stored choice, not to English.
    await addAuthenticator(`${BASE}/portal`, headers);
    expect((await mailArriving(test, sink, email, NOTICE_AR)).headers.get('content-language')).toBe('ar');

    const reviewer = `reviewer-${randomUUID()}@example.com`;
    await test.db.transaction((tx) => createStaffUser(tx, { email: reviewer, password: PASSWORD }, clock.now()));
    const login = await call('POST', `${INTERNAL}/login`, { 'accept-language': 'en' }, { email: reviewer, password: PASSWORD });
    const staff = { authorization: `Bearer ${login.json<{ sessionToken: string }>().sessionToken}` };
    expect((await call('PUT', `${INTERNAL}/account/language`, staff, { language: 'ckb' })).statusCode).toBe(204);
    await addAuthenticator(INTERNAL, staff);
    const sorani = await mailArriving(test, sink, reviewer, /./);
    expect(sorani.headers.get('content-language')).toBe('ckb');
    expect([NOTICE_EN, NOTICE_AR]).not.toContain(sorani.subject);
  });

  it('refuses a language mails are not written in, and a caller who is not signed in', async () => {
    const { headers } = await portalUser();
    const unknown = await call('PUT', `${BASE}/portal/account/language`, headers, { language: 'fr' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect((await call('PUT', `${BASE}/portal/account/language`, headers, {})).statusCode).toBe(400);
    expect((await call('PUT', `${BASE}/portal/account/language`, {}, { language: 'ar' })).statusCode).toBe(401);
    expect((await call('PUT', `${INTERNAL}/account/language`, {}, { language: 'ar' })).statusCode).toBe(401);
  });

  it('mails nothing when the change is refused', async () => {
    const { email, headers } = await portalUser();
    expect((await call('POST', `${BASE}/portal/account/recovery-codes`, headers)).statusCode).toBe(409);
    await test.worker.sendMails();
    expect(mailsTo(email)).toEqual([]);
  });
});
