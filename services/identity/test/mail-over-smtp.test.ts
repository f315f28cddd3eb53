import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { ParsedMail } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { auditLog, loginThrottle } from '../src/db/schema.js';
import { createTenant } from '../src/domain/tenants/tenants.js';
import { expectNoTimingGap } from './no-enumeration-timing.js';
import { BASE, PASSWORD } from './helpers.js';
import { mailArriving, useMailingApp } from './smtp-mail-fixture.js';

const NEW_PASSWORD = 'a freshly chosen passphrase 7';
const HOUR = 3_600_000;

describe('mails over a real SMTP server: forgot password, invitations', () => {
  const suite = useMailingApp('10.0', { MAIL_REPLY_TO: 'support@example.test' });
  const { clock, remoteAddress } = suite;

  async function newUser() {
    const email = `user-${randomUUID()}@example.com`;
    const { tenantId, adminUserId } = await suite.test.db.transaction((tx) => createTenant(tx, { name: 'Acme', adminEmail: email, adminPassword: PASSWORD }, clock.now()));
    return { email, tenantId, userId: adminUserId };
  }
  const forgot = (email: string, headers: Record<string, string> = {}, address = remoteAddress()) =>
    suite.test.app.inject({ method: 'POST', url: `${BASE}/portal/password-reset`, payload: { email }, headers, remoteAddress: address });
  const confirm = (token: string, password = NEW_PASSWORD) => suite.test.app.inject({ method: 'POST', url: `${BASE}/portal/password-reset/confirm`, payload: { token, password } });
  const signIn = (email: string, password: string) => suite.test.app.inject({ method: 'POST', url: `${BASE}/portal/login`, payload: { email, password } });
  const whoAmI = (token: string) => suite.test.app.inject({ method: 'GET', url: `${BASE}/portal/session`, headers: { authorization: `Bearer ${token}` } });

  const mailTo = (to: string, subject: string | RegExp) => mailArriving(suite.test, suite.sink, to, subject);
  const tokenIn = (mail: ParsedMail) => {
    const match = /https:\/\/kyc\.example\.test\/portal\/password-reset#([A-Za-z0-9_-]{43})/.exec(mail.text ?? '');
    if (!match?.[1]) throw new Error(`no reset link in: ${mail.text}`);
    return match[1];
  };

  it('mails an English reset link with From, To, Reply-To, a stable Message-ID, a text and an HTML part, through STARTTLS and AUTH', async () => {
    const { email } = await newUser();
    const response = await forgot(email, { 'accept-language': 'en-GB,en;q=0.9' });
    expect(response.statusCode).toBe(202);
    expect(response.json()).toEqual({ message: expect.stringContaining('If the address has an account') });
    const mail = await mailTo(email, 'Reset your password');
    expect(mail.from?.value).toEqual([{ address: 'no-reply@mail.example.test', name: 'Acme Verification' }]);
    expect(mail.replyTo?.text).toBe('support@example.test');
    expect(mail.messageId).toMatch(/^<mail-[0-9a-f-]{36}@mail\.example\.test>$/);
    expect(mail.text).toContain('within 60 minutes');
    expect(mail.html).toContain('dir="ltr"');
    expect(mail.html).not.toMatch(/<img|<link|<script|src=/i);
    expect(mail.html).toContain(`https://kyc.example.test/portal/password-reset#${tokenIn(mail)}`);
    expect(suite.sink.sessions.length).toBeGreaterThan(0);
    expect(suite.sink.sessions.every((session) => session.secure)).toBe(true);
  });

  it('writes to an Arabic reader in Arabic, right to left', async () => {
    const { email } = await newUser();
    expect((await forgot(email, { 'accept-language': 'ar-SY,ar;q=0.9,en;q=0.5' })).statusCode).toBe(202);
    const mail = await mailTo(email, 'إعادة تعيين كلمة المرور');
    expect(mail.html).toContain('dir="rtl"');
    expect(mail.html).toContain('lang="ar"');
    expect(mail.text).toContain('دقيقة');
    expect(mail.headers.get('content-language')).toBe('ar');
    expect(tokenIn(mail)).toHaveLength(43);
  });

  it('sets the new password from the link: other sessions end, the lockout is cleared, password.reset is audited, a notice is mailed, and the link works once', async () => {
    const { email, tenantId, userId } = await newUser();
    const oldSession = (await signIn(email, PASSWORD)).json<{ sessionToken: string }>().sessionToken;
    for (let attempt = 0; attempt < 5; attempt++) await signIn(email, 'not the password at all');
    expect((await signIn(email, PASSWORD)).statusCode).toBe(429);
    await forgot(email);
    const token = tokenIn(await mailTo(email, 'Reset your password'));

    const confirmed = await confirm(token);
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    const newSession = confirmed.json<{ sessionToken: string }>().sessionToken;
    expect((await whoAmI(newSession)).statusCode).toBe(200);
    expect((await whoAmI(oldSession)).statusCode).toBe(401);
    expect(await suite.test.db.select().from(loginThrottle).where(eq(loginThrottle.email, email))).toEqual([]);
    expect((await signIn(email, NEW_PASSWORD)).statusCode).toBe(200);
    expect((await signIn(email, PASSWORD)).statusCode).toBe(401);
    const audits = await suite.test.db.select({ actor: auditLog.actor }).from(auditLog).where(and(eq(auditLog.tenantId, tenantId), eq(auditLog.action, 'password.reset')));
    expect(audits).toEqual([{ actor: `user:${userId}` }]);
    const notice = await mailTo(email, 'Your password was changed');
    expect(notice.text).toContain(email);
    expect(notice.text).not.toMatch(/password-reset#/);

    const again = await confirm(token, 'yet another passphrase 99');
    expect(again.statusCode).toBe(410);
    expect(again.json()).toMatchObject({ code: 'RESET_LINK_USED' });
  });

  it('answers 404 for an unknown link, 410 for an expired one, 400 for a weak password', async () => {
    const unknown = await confirm('A'.repeat(43));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toContain('application/problem+json');
    expect(unknown.json()).toMatchObject({ code: 'RESET_LINK_NOT_FOUND' });
    expect((await confirm('short')).statusCode).toBe(400);

    const { email } = await newUser();
    await forgot(email);
    const token = tokenIn(await mailTo(email, 'Reset your password'));
    expect((await confirm(token, 'password1234')).statusCode).toBe(400);
    clock.advance(60 * 60_000);
    const expired = await confirm(token);
    expect(expired.statusCode).toBe(410);
    expect(expired.json()).toMatchObject({ code: 'RESET_LINK_EXPIRED' });
  });

  it('answers an unknown address exactly as a known one, and mails nothing', async () => {
    const { email } = await newUser();
    const stranger = `nobody-${randomUUID()}@example.com`;
    const known = await forgot(email);
    const unknown = await forgot(stranger);
    expect(unknown.statusCode).toBe(known.statusCode);
    expect(unknown.body).toBe(known.body);
    await mailTo(email, 'Reset your password');
    expect(suite.sink.messages.some((message) => message.to && !Array.isArray(message.to) && message.to.text === stranger)).toBe(false);
  });

  it('takes about the same time for a known and an unknown address (median of 20 under 50 ms apart)', async () => {
    const { email } = await newUser();
    await expectNoTimingGap((address) => forgot(address), email, () => clock.advance(HOUR + 1000));
  });

  it('allows 3 requests per address and 10 per IP address an hour, then answers 429 with Retry-After', async () => {
    clock.advance(HOUR + 1000);
    const { email } = await newUser();
    for (let request = 0; request < 3; request++) expect((await forgot(email)).statusCode).toBe(202);
    const limited = await forgot(email);
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.json()).toMatchObject({ code: 'RATE_LIMITED' });

    const address = remoteAddress();
    for (let request = 0; request < 10; request++) expect((await forgot(`someone-${request}@example.com`, {}, address)).statusCode).toBe(202);
    expect((await forgot('someone-else@example.com', {}, address)).statusCode).toBe(429);
    clock.advance(HOUR + 1000);
    expect((await forgot('someone-else@example.com', {}, address)).statusCode).toBe(202);
  });

  it('keeps mails while the SMTP server is down, reports mail degraded, and delivers each exactly once when it is back', async () => {
    clock.advance(HOUR + 1000);
    const queued = async () => (await suite.test.app.inject({ method: 'GET', url: '/health' })).json<{ checks: { mail: { queued: number } } }>().checks.mail.queued;
    // What the earlier tests queued goes out first, so the backlog below is these three alone.
    await expect.poll(async () => (await suite.test.worker.sendMails()) + (await queued()), { timeout: 60_000 }).toBe(0);
    const users = await Promise.all([newUser(), newUser(), newUser()]);
    await suite.sink.stop();
    for (const user of users) expect((await forgot(user.email)).statusCode).toBe(202);
    await suite.test.worker.sendMails();
    const health = await suite.test.app.inject({ method: 'GET', url: '/health' });
    expect(health.json()).toMatchObject({ status: 'degraded', checks: { mail: { transport: 'smtp', queued: 3, retrying: 3 } } });

    await suite.sink.start();
    clock.advance(2000);
    const arrived = await Promise.all(users.map((user) => mailTo(user.email, 'Reset your password')));
    // Later runs find nothing more to send: each Message-ID arrived once.
    await suite.test.worker.sendMails();
    const ids = arrived.map((mail) => mail.messageId);
    for (const id of ids) expect(suite.sink.messages.filter((message) => message.messageId === id)).toHaveLength(1);
    const after = await suite.test.app.inject({ method: 'GET', url: '/health' });
    expect(after.json()).toMatchObject({ checks: { mail: { queued: 0, retrying: 0 } } });
  });

  it('mails each invitation to the invited address with the same link the admin sees, again on a re-invite', async () => {
    const { email } = await newUser();
    const session = (await signIn(email, PASSWORD)).json<{ sessionToken: string }>().sessionToken;
    const colleague = `colleague-${randomUUID()}@example.com`;
    const invite = (language: string) =>
      suite.test.app.inject({ method: 'POST', url: `${BASE}/portal/team/invitations`, headers: { authorization: `Bearer ${session}`, 'accept-language': language }, payload: { email: colleague, role: 'PartnerReadOnly' } });
    const first = await invite('en');
    expect(first.statusCode, first.body).toBe(201);
    const firstMail = await mailTo(colleague, "You are invited to Acme's partner portal");
    const linkOf = (mail: ParsedMail) => /https:\/\/kyc\.example\.test\/portal\/invitations#\S+/.exec(mail.text ?? '')?.[0];
    expect(linkOf(firstMail)).toBe(first.json<{ invitationUrl: string }>().invitationUrl);
    expect(firstMail.text).toContain('PartnerReadOnly');

    const second = await invite('ar');
    const secondMail = await mailTo(colleague, /دعوة/);
    expect(secondMail.html).toContain('dir="rtl"');
    expect(linkOf(secondMail)).toBe(second.json<{ invitationUrl: string }>().invitationUrl);
    expect(linkOf(secondMail)).not.toBe(linkOf(firstMail));
    expect(secondMail.messageId).not.toBe(firstMail.messageId);
  });

  it('sends a security notice to the account\'s own address when its password is changed from the account screen', async () => {
    const { email } = await newUser();
    const session = (await signIn(email, PASSWORD)).json<{ sessionToken: string }>().sessionToken;
    const changed = await suite.test.app.inject({
      method: 'POST',
      url: `${BASE}/portal/account/password`,
      headers: { authorization: `Bearer ${session}`, 'accept-language': 'ar' },
      payload: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    const notice = await mailTo(email, 'تم تغيير كلمة المرور');
    expect(notice.text).toContain(email);
    expect(notice.html).toContain('dir="rtl"');
    expect(notice.text).toContain('https://kyc.example.test/portal/');
  });

  // A mail's link is followed as a reader would: the page it names is served, and the token in its fragment is what the page's API takes.
  const page = (link: string) => suite.test.app.inject({ method: 'GET', url: new URL(link).pathname });
  const fragment = (link: string) => new URL(link).hash.slice(1);

  it('follows the links mailed: the reset page sets the password with its token, the invitation page accepts with its token', async () => {
    const { email } = await newUser();
    expect((await forgot(email)).statusCode).toBe(202);
    const resetLink = /https:\/\/kyc\.example\.test\/portal\/password-reset#\S+/.exec((await mailTo(email, 'Reset your password')).text ?? '')?.[0] ?? '';
    const resetPage = await page(resetLink);
    expect(resetPage.statusCode).toBe(200);
    expect(resetPage.headers['content-type']).toContain('text/html');
    expect((await confirm(fragment(resetLink))).statusCode).toBe(200);

    const session = (await signIn(email, NEW_PASSWORD)).json<{ sessionToken: string }>().sessionToken;
    const colleague = `colleague-${randomUUID()}@example.com`;
    const invited = await suite.test.app.inject({ method: 'POST', url: `${BASE}/portal/team/invitations`, headers: { authorization: `Bearer ${session}` }, payload: { email: colleague, role: 'PartnerReadOnly' } });
    expect(invited.statusCode, invited.body).toBe(201);
    const inviteLink = /https:\/\/kyc\.example\.test\/portal\/invitations#\S+/.exec((await mailTo(colleague, /invited/)).text ?? '')?.[0] ?? '';
    expect((await page(inviteLink)).statusCode).toBe(200);
    const lookup = await suite.test.app.inject({ method: 'POST', url: `${BASE}/portal/invitations/lookup`, payload: { token: fragment(inviteLink) } });
    expect(lookup.statusCode, lookup.body).toBe(200);
    const accepted = await suite.test.app.inject({ method: 'POST', url: `${BASE}/portal/invitations/accept`, payload: { token: fragment(inviteLink), password: 'a colleague passphrase 42' } });
    expect(accepted.statusCode, accepted.body).toBe(200);
  });

  it('writes a security notice from a bare API call (no Accept-Language) in the language the user last signed in with', async () => {
    const { email } = await newUser();
    const arabicSignIn = await suite.test.app.inject({ method: 'POST', url: `${BASE}/portal/login`, headers: { 'accept-language': 'ar' }, payload: { email, password: PASSWORD } });
    const session = arabicSignIn.json<{ sessionToken: string }>().sessionToken;
    const changed = await suite.test.app.inject({ method: 'POST', url: `${BASE}/portal/account/password`, headers: { authorization: `Bearer ${session}` }, payload: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD } });
    expect(changed.statusCode, changed.body).toBe(200);
    const notice = await mailTo(email, 'تم تغيير كلمة المرور');
    expect(notice.html).toContain('<html lang="ar" dir="rtl">');
  });
});
