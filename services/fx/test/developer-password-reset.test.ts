import { count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { developerPasswordResets } from '../src/db/schema.js';
import { DASHBOARD_BASE, DEVELOPER_PASSWORD, useDeveloperApp } from './developer-helpers.js';
import { manualClock } from './helpers.js';

const NEW_PASSWORD = 'seven lanterns over the harbour';
const clock = manualClock('2026-11-02T10:00:00.000Z');
const HOUR = 3_600_000;
const REQUESTED = { message: 'If the address has an account, a link to choose a new password is on its way. It works once, within 60 minutes.' };

describe('the developer dashboard: forgot password', () => {
  const started = useDeveloperApp({ clock: clock.now });
  const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    started.app().app.inject({ method: 'POST', url: `/api/v1/developer/${url}`, payload: payload as Record<string, unknown>, headers });
  const me = (cookie: string) => started.app().app.inject({ method: 'GET', url: '/api/v1/developer/me', headers: { cookie } });
  const resetMail = (email: string) => started.mailTo(email, (subject) => subject.startsWith('Choose a new password'));
  const tokenIn = (text: string | undefined) => /\/developers\/reset#([A-Za-z0-9_-]{43})\b/.exec(text ?? '')?.[1] as string;
  // Each test starts a fresh hour, so the per-IP limit (10 an hour, every inject comes from 127.0.0.1) counts only its own requests.
  const freshHour = () => clock.advance(2 * HOUR);

  it('mails a single-use link to an existing account; the new password works, the old one and every session end, and a notice is mailed', async () => {
    freshHour();
    const { email, cookie } = await started.developer('reset');
    const requested = await post('password/forgot', { email: email.toUpperCase() });
    expect(requested.statusCode).toBe(202);
    expect(requested.json()).toEqual(REQUESTED);
    const mail = await resetMail(email);
    const token = tokenIn(mail.text);
    expect(mail.text).toContain(`${DASHBOARD_BASE}/en/developers/reset#${token}`);

    const reset = await post('password/reset', { token, password: NEW_PASSWORD });
    expect(reset.statusCode, reset.body).toBe(204);
    expect((await me(cookie)).statusCode).toBe(401);
    expect((await post('login', { email, password: DEVELOPER_PASSWORD })).statusCode).toBe(401);
    expect((await post('login', { email, password: NEW_PASSWORD })).statusCode).toBe(200);
    const notice = await started.mailTo(email, (subject) => subject === 'Your password was changed');
    expect(notice.text).toContain(email);

    const again = await post('password/reset', { token, password: 'yet another long passphrase' });
    expect(again.statusCode).toBe(410);
    expect(again.json()).toMatchObject({ code: 'RESET_LINK_USED' });
    expect((await post('login', { email, password: NEW_PASSWORD })).statusCode).toBe(200);
  });

  it('answers an unknown address exactly as a known one, stores the request, and mails nothing', async () => {
    freshHour();
    const unknown = `nobody-${Date.now()}@example.com`;
    const answer = await post('password/forgot', { email: unknown });
    expect(answer.statusCode).toBe(202);
    expect(answer.json()).toEqual(REQUESTED);
    const rows = await started.app().dependencies.database.db.select().from(developerPasswordResets).where(eq(developerPasswordResets.email, unknown));
    expect(rows).toEqual([expect.objectContaining({ accountId: null, tokenHash: null })]);
    // The queue holds no mail for it: running the worker empties it without sending one there.
    await started.app().app.fxMail.worker.runOnce();
    expect(started.sink().messages.some((message) => !Array.isArray(message.to) && message.to?.text === unknown)).toBe(false);
  });

  it('refuses an expired link with 410 and leaves the password as it was', async () => {
    freshHour();
    const { email } = await started.developer('expired');
    expect((await post('password/forgot', { email })).statusCode).toBe(202);
    const token = tokenIn((await resetMail(email)).text);
    clock.advance(60 * 60_000);
    const late = await post('password/reset', { token, password: NEW_PASSWORD });
    expect(late.statusCode).toBe(410);
    expect(late.json()).toMatchObject({ code: 'RESET_LINK_EXPIRED' });
    expect((await post('login', { email, password: DEVELOPER_PASSWORD })).statusCode).toBe(200);
  });

  it('refuses a password outside the rules and a malformed or unknown token with a problem, spending nothing', async () => {
    freshHour();
    const { email } = await started.developer('rules');
    expect((await post('password/forgot', { email })).statusCode).toBe(202);
    const token = tokenIn((await resetMail(email)).text);
    for (const password of ['short', 'x'.repeat(257), 'passwordpassword']) {
      const refused = await post('password/reset', { token, password });
      expect(refused.statusCode, password).toBe(400);
      expect(refused.headers['content-type']).toContain('application/problem+json');
    }
    expect((await post('password/reset', { token: 'not-a-token', password: NEW_PASSWORD })).statusCode).toBe(400);
    expect((await post('password/reset', { token: 'A'.repeat(43), password: NEW_PASSWORD })).json()).toMatchObject({ status: 404, code: 'RESET_LINK_NOT_FOUND' });
    expect((await post('password/forgot', { email: 'not an address' })).statusCode).toBe(400);
    expect((await post('password/forgot', { email, extra: 1 })).statusCode).toBe(400);
    // The link still works after the refusals.
    expect((await post('password/reset', { token, password: NEW_PASSWORD })).statusCode).toBe(204);
  });

  it("resets only the account the link was mailed to: another account's password and sessions stay", async () => {
    freshHour();
    const first = await started.developer('owner');
    const second = await started.developer('bystander');
    expect((await post('password/forgot', { email: first.email })).statusCode).toBe(202);
    const token = tokenIn((await resetMail(first.email)).text);
    expect((await post('password/reset', { token, password: NEW_PASSWORD })).statusCode).toBe(204);
    expect((await me(second.cookie)).statusCode).toBe(200);
    expect((await post('login', { email: second.email, password: DEVELOPER_PASSWORD })).statusCode).toBe(200);
    expect((await post('login', { email: second.email, password: NEW_PASSWORD })).statusCode).toBe(401);
  });

  it('clears a sign-in lockout', async () => {
    freshHour();
    const { email } = await started.developer('locked');
    for (let attempt = 0; attempt < 5; attempt++) expect((await post('login', { email, password: 'wrong but long enough' })).statusCode).toBe(401);
    expect((await post('login', { email, password: DEVELOPER_PASSWORD })).statusCode).toBe(429);
    expect((await post('password/forgot', { email })).statusCode).toBe(202);
    const token = tokenIn((await resetMail(email)).text);
    expect((await post('password/reset', { token, password: NEW_PASSWORD })).statusCode).toBe(204);
    expect((await post('login', { email, password: NEW_PASSWORD })).statusCode).toBe(200);
  });

  it('limits requests to 3 per address an hour, known or not, with Retry-After', async () => {
    freshHour();
    const email = `limited-${Date.now()}@example.com`;
    for (let attempt = 0; attempt < 3; attempt++) expect((await post('password/forgot', { email })).statusCode).toBe(202);
    const limited = await post('password/forgot', { email });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    const [stored] = await started.app().dependencies.database.db.select({ requests: count() }).from(developerPasswordResets).where(eq(developerPasswordResets.email, email));
    expect(stored?.requests).toBe(3);
  });

  it('points the "you already have an account" mail at the forgot-password screen, in the account\'s language', async () => {
    freshHour();
    const { email } = await started.developer('exists');
    expect((await post('signup', { email, password: 'someone else entirely 42', language: 'de' })).statusCode).toBe(202);
    const mail = await started.mailTo(email, (subject) => subject === 'You already have an account');
    expect(mail.text).toContain('choose a new one with the link below');
    expect(mail.text).toContain(`${DASHBOARD_BASE}/en/developers/forgot`);
  });

  it('refuses a forged cross-origin POST with 403 and stores nothing', async () => {
    freshHour();
    const email = `forged-${Date.now()}@example.com`;
    for (const headers of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }] as Record<string, string>[]) {
      const forged = await post('password/forgot', { email }, headers);
      expect(forged.statusCode).toBe(403);
      expect((await post('password/reset', { token: 'A'.repeat(43), password: NEW_PASSWORD }, headers)).statusCode).toBe(403);
    }
    const [stored] = await started.app().dependencies.database.db.select({ requests: count() }).from(developerPasswordResets).where(eq(developerPasswordResets.email, email));
    expect(stored?.requests).toBe(0);
  });
});
