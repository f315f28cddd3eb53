import { randomUUID } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { ParsedMail } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { auditLog, loginThrottle } from '../src/db/schema.js';
import { createStaffUser } from '../src/domain/accounts/staff.js';
import { createTenant } from '../src/domain/tenants/tenants.js';
import { expectNoTimingGap } from './no-enumeration-timing.js';
import { BASE, PASSWORD } from './helpers.js';
import { mailArriving, useMailingApp } from './smtp-mail-fixture.js';
import { authenticatorCode } from './second-factor-helpers.js';

const INTERNAL = '/api/internal/v1';
const NEW_PASSWORD = 'a freshly chosen passphrase 7';
const HOUR = 3_600_000;

describe("the console's forgot password, over a real SMTP server", () => {
  const suite = useMailingApp('10.1', { STAFF_REQUIRE_SECOND_FACTOR: 'false' });
  const { clock, remoteAddress } = suite;

  async function newStaff() {
    const email = `reviewer-${randomUUID()}@example.com`;
    const { staffId } = await suite.test.db.transaction((tx) => createStaffUser(tx, { email, password: PASSWORD }, clock.now()));
    return { email, staffId };
  }
  const call = (path: string, payload: object, headers: Record<string, string> = {}, address = remoteAddress()) =>
    suite.test.app.inject({ method: 'POST', url: `${INTERNAL}${path}`, payload, headers, remoteAddress: address });
  const forgot = (email: string, headers: Record<string, string> = {}, address = remoteAddress()) => call('/password-reset', { email }, headers, address);
  const confirm = (token: string, password = NEW_PASSWORD) => call('/password-reset/confirm', { token, password });
  const signIn = (email: string, password: string) => call('/login', { email, password });
  const session = (token: string) => suite.test.app.inject({ method: 'GET', url: `${INTERNAL}/session`, headers: { authorization: `Bearer ${token}` } });
  const tokenOf = (response: { json: <T>() => T }) => response.json<{ sessionToken: string }>().sessionToken;

  const mailTo = (to: string, subject: string) => mailArriving(suite.test, suite.sink, to, subject);
  const consoleToken = (mail: ParsedMail) => {
    const match = /https:\/\/kyc\.example\.test\/console\/password-reset#([A-Za-z0-9_-]{43})/.exec(mail.text ?? '');
    if (!match?.[1]) throw new Error(`no console reset link in: ${mail.text}`);
    return match[1];
  };

  it('mails an English link to /console/password-reset with From, To, a stable Message-ID, a text and an HTML part', async () => {
    const { email } = await newStaff();
    const response = await forgot(email, { 'accept-language': 'en' });
    expect(response.statusCode).toBe(202);
    expect(response.headers['cache-control']).toBe('no-store');
    const mail = await mailTo(email, 'Reset your password');
    expect(mail.from?.value).toEqual([{ address: 'no-reply@mail.example.test', name: 'Acme Verification' }]);
    expect(mail.messageId).toMatch(/^<mail-[0-9a-f-]{36}@mail\.example\.test>$/);
    expect(mail.text).toContain('within 60 minutes');
    expect(mail.html).toContain('dir="ltr"');
    expect(mail.html).toContain(`https://kyc.example.test/console/password-reset#${consoleToken(mail)}`);
  });

  it('writes to an Arabic reader in Arabic, right to left', async () => {
    const { email } = await newStaff();
    expect((await forgot(email, { 'accept-language': 'ar' })).statusCode).toBe(202);
    const mail = await mailTo(email, 'إعادة تعيين كلمة المرور');
    expect(mail.html).toContain('dir="rtl"');
    expect(mail.headers.get('content-language')).toBe('ar');
    expect(consoleToken(mail)).toHaveLength(43);
  });

  it('sets the password from the link: the old session ends, the lockout is cleared, password.reset is audited, a notice is mailed, the link works once', async () => {
    const { email, staffId } = await newStaff();
    const oldSession = tokenOf(await signIn(email, PASSWORD));
    for (let attempt = 0; attempt < 5; attempt++) await signIn(email, 'not the password at all');
    expect((await signIn(email, PASSWORD)).statusCode).toBe(429);
    await forgot(email);
    const token = consoleToken(await mailTo(email, 'Reset your password'));

    const confirmed = await confirm(token);
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.headers['set-cookie']).toEqual(expect.arrayContaining([expect.stringMatching(/^svc_console_session=svc_ss_/)]));
    expect((await session(tokenOf(confirmed))).json()).toMatchObject({ staff: { id: staffId, email } });
    expect((await session(oldSession)).statusCode).toBe(401);
    expect(await suite.test.db.select().from(loginThrottle).where(eq(loginThrottle.email, `staff:${email}`))).toEqual([]);
    expect((await signIn(email, NEW_PASSWORD)).statusCode).toBe(200);
    expect((await signIn(email, PASSWORD)).statusCode).toBe(401);
    const audits = await suite.test.db.select({ actor: auditLog.actor }).from(auditLog).where(and(isNull(auditLog.tenantId), eq(auditLog.action, 'password.reset'), eq(auditLog.target, `staff:${staffId}`)));
    expect(audits).toEqual([{ actor: `staff:${staffId}` }]);
    const notice = await mailTo(email, 'Your password was changed');
    expect(notice.text).toContain('https://kyc.example.test/console/');
    expect(notice.text).not.toMatch(/password-reset#/);

    const again = await confirm(token, 'yet another passphrase 99');
    expect(again.statusCode).toBe(410);
    expect(again.json()).toMatchObject({ code: 'RESET_LINK_USED' });
  });

  it('still asks for the second factor of a reviewer who has one', async () => {
    const { email } = await newStaff();
    const bearer = { authorization: `Bearer ${tokenOf(await signIn(email, PASSWORD))}` };
    const started = await suite.test.app.inject({ method: 'POST', url: `${INTERNAL}/account/second-factors/totp`, headers: bearer });
    const { secret } = started.json<{ secret: string }>();
    const enrolled = await suite.test.app.inject({ method: 'POST', url: `${INTERNAL}/account/second-factors/totp/confirm`, headers: bearer, payload: { code: authenticatorCode(secret, clock.now()) } });
    expect(enrolled.statusCode, enrolled.body).toBe(200);
    await forgot(email);
    const confirmed = await confirm(consoleToken(await mailTo(email, 'Reset your password')));
    expect(confirmed.statusCode, confirmed.body).toBe(202);
    const { pendingSignInToken } = confirmed.json<{ pendingSignInToken: string }>();
    clock.advance(30_000);
    const done = await call('/login/second-factor', { pendingSignInToken, code: authenticatorCode(secret, clock.now()) });
    expect(done.statusCode, done.body).toBe(200);
  });

  it('answers 404 for an unknown link, 410 for an expired one, 400 for a weak password or bad body', async () => {
    const unknown = await confirm('A'.repeat(43));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toContain('application/problem+json');
    expect(unknown.json()).toMatchObject({ code: 'RESET_LINK_NOT_FOUND' });
    expect((await confirm('short')).statusCode).toBe(400);
    expect((await call('/password-reset', { email: 'not an address' })).statusCode).toBe(400);

    const { email } = await newStaff();
    await forgot(email);
    const token = consoleToken(await mailTo(email, 'Reset your password'));
    expect((await confirm(token, 'password1234')).statusCode).toBe(400);
    clock.advance(60 * 60_000);
    const expired = await confirm(token);
    expect(expired.statusCode).toBe(410);
    expect(expired.json()).toMatchObject({ code: 'RESET_LINK_EXPIRED' });
  });

  it("keeps the realms apart: a portal user's address gets no console link, a console link does not confirm on the portal", async () => {
    const portalEmail = `user-${randomUUID()}@example.com`;
    await suite.test.db.transaction((tx) => createTenant(tx, { name: 'Acme', adminEmail: portalEmail, adminPassword: PASSWORD }, clock.now()));
    expect((await forgot(portalEmail)).statusCode).toBe(202);
    await suite.test.worker.sendMails();
    expect(suite.sink.messages.some((message) => message.to && !Array.isArray(message.to) && message.to.text === portalEmail)).toBe(false);

    const { email } = await newStaff();
    await forgot(email);
    const token = consoleToken(await mailTo(email, 'Reset your password'));
    const onPortal = await suite.test.app.inject({ method: 'POST', url: `${BASE}/portal/password-reset/confirm`, payload: { token, password: NEW_PASSWORD } });
    expect(onPortal.statusCode).toBe(404);
    expect((await confirm(token)).statusCode).toBe(200);
  });

  it('answers an unknown address exactly as a known one, in about the same time (median of 20 under 50 ms apart)', async () => {
    const { email } = await newStaff();
    const known = await forgot(email);
    const unknown = await forgot(`nobody-${randomUUID()}@example.com`);
    expect(unknown.statusCode).toBe(known.statusCode);
    expect(unknown.body).toBe(known.body);

    await expectNoTimingGap((address) => forgot(address), email, () => clock.advance(HOUR + 1000));
  });

  it('allows 3 requests per address and 10 per IP address an hour, then answers 429 with Retry-After', async () => {
    clock.advance(HOUR + 1000);
    const { email } = await newStaff();
    for (let request = 0; request < 3; request++) expect((await forgot(email)).statusCode).toBe(202);
    const limited = await forgot(email);
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.json()).toMatchObject({ code: 'RATE_LIMITED' });

    const address = remoteAddress();
    for (let request = 0; request < 10; request++) expect((await forgot(`someone-${request}@example.com`, {}, address)).statusCode).toBe(202);
    expect((await forgot('someone-else@example.com', {}, address)).statusCode).toBe(429);
  });
});
