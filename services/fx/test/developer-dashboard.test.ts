import { startSmtpSink, type SmtpSink } from '@svc/mailer/testing';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useDeveloperApp } from './developer-helpers.js';
import { buildTestApp, type TestApp } from './helpers.js';

const BASE = 'http://localhost:3002';
const PASSWORD = 'a quiet river at dawn 7';
let serial = 0;
const newEmail = (tag: string) => `dev-${tag}-${Date.now()}-${serial++}@example.com`;

describe('the developer dashboard API: sign-up, verification, sessions, keys', () => {
  let test: TestApp;
  let sink: SmtpSink;

  beforeAll(async () => {
    sink = await startSmtpSink();
    test = await buildTestApp({ SMTP_URL: sink.url, MAIL_FROM: '"Exchange Rates" <no-reply@rates.example.test>', PUBLIC_BASE_URL: BASE, MAIL_RETRY_SCHEDULE_MS: '0,50' }, { smtpCa: sink.certPem });
  });
  afterAll(async () => {
    await test?.close();
    await sink?.stop();
  });

  const post = (url: string, payload: unknown, headers: Record<string, string> = {}) => test.app.inject({ method: 'POST', url: `/api/v1/developer/${url}`, payload: payload as Record<string, unknown>, headers });
  const get = (url: string, headers: Record<string, string> = {}) => test.app.inject({ method: 'GET', url, headers });
  async function mailTo(to: string): Promise<ParsedMail> {
    const found = () => sink.messages.find((message) => message.to && !Array.isArray(message.to) && message.to.text === to);
    await expect
      .poll(async () => {
        await test.app.fxMail.worker.runOnce();
        return found() !== undefined;
      }, { timeout: 30_000 })
      .toBe(true);
    return found() as ParsedMail;
  }
  const tokenIn = (mail: ParsedMail) => /\/developers\/verify#(fxv_[0-9a-f]{64})/.exec(mail.text ?? '')?.[1] as string;
  const cookieOf = (response: { headers: Record<string, unknown> }) => String(response.headers['set-cookie']).split(';')[0] as string;

  /** Signs up, opens the mailed link, and returns the session cookie. */
  async function verifiedAccount(language = 'en') {
    const email = newEmail(language);
    expect((await post('signup', { email, password: PASSWORD, language })).statusCode).toBe(202);
    const verified = await post('verify', { token: tokenIn(await mailTo(email)) });
    expect(verified.statusCode, verified.body).toBe(200);
    return { email, cookie: cookieOf(verified) };
  }

  it('signs up (202), mails a single-use link, verifies with a session cookie, issues a key once that works on /client/me', async () => {
    const email = newEmail('flow');
    const signup = await post('signup', { email: email.toUpperCase(), password: PASSWORD, language: 'en' });
    expect(signup.statusCode).toBe(202);
    const mail = await mailTo(email);
    expect(mail.subject).toBe('Confirm your address for the exchange rate API');
    expect(mail.html).toContain('dir="ltr"');
    const token = tokenIn(mail);
    expect(mail.text).toContain(`${BASE}/en/developers/verify#${token}`);
    // Unverified: no sign-in, so no key.
    expect((await post('login', { email, password: PASSWORD })).statusCode).toBe(403);

    const verified = await post('verify', { token });
    expect(verified.statusCode).toBe(200);
    // The verified account holds its Free client at once; the private key is in this answer only.
    const { client: keys, ...account } = verified.json<{ client: { id: string; publicKey: string; privateKey: string; plan: string; name: string } }>();
    expect(account).toEqual({ email, emailVerified: true, plan: 'Free', language: 'en' });
    expect(keys).toMatchObject({ name: 'My first key', plan: 'Free', publicKey: expect.stringMatching(/^svc_pub_/), privateKey: expect.stringMatching(/^svc_prv_[0-9a-f]{64}$/) });
    const setCookie = String(verified.headers['set-cookie']);
    expect(setCookie).toMatch(/^fx_developer_session=fxs_[0-9a-f]{64}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800$/);
    expect((await post('verify', { token })).statusCode).toBe(410);
    expect((await post('verify', { token: 'fxv_unknown' })).statusCode).toBe(404);

    const cookie = cookieOf(verified);
    expect((await get('/api/v1/developer/me', { cookie })).json()).toMatchObject({ email, emailVerified: true, plan: 'Free' });
    const listed = await get('/api/v1/developer/clients', { cookie });
    expect(listed.json()).toEqual({ clients: [{ id: keys.id, name: 'My first key', plan: 'Free', publicKey: keys.publicKey, isActive: true, createdUtc: expect.any(String), lastUsedUtc: null }] });
    expect(listed.body).not.toContain(keys.privateKey);
    const clientMe = await get('/api/v1/client/me', { 'X-Api-Key': keys.publicKey, 'X-Api-Secret': keys.privateKey });
    expect(clientMe.statusCode, clientMe.body).toBe(200);
    // Free holds one client.
    const second = await post('clients', { name: 'Another' }, { cookie });
    expect(second.statusCode).toBe(403);
    expect(second.headers['content-type']).toContain('application/problem+json');
    expect(second.json<{ detail: string }>().detail).toContain('Free plan allows 1 API client');
  });

  it('answers a second sign-up of the same address with the same 202 and mails "you already have an account" instead of a link', async () => {
    const { email } = await verifiedAccount();
    const again = await post('signup', { email, password: 'another fine passphrase 9', language: 'en' });
    expect(again.statusCode).toBe(202);
    expect(again.json()).toEqual({ message: 'Check your mailbox: a link to confirm the address is on its way.' });
    await expect
      .poll(async () => {
        await test.app.fxMail.worker.runOnce();
        return sink.messages.filter((message) => !Array.isArray(message.to) && message.to?.text === email).map((message) => message.subject);
      }, { timeout: 30_000 })
      .toContain('You already have an account');
    // The old password still signs in: the second sign-up changed nothing.
    expect((await post('login', { email, password: PASSWORD })).statusCode).toBe(200);
  });

  it('writes the verification mail in Arabic, right to left, without a language or Accept-Language', async () => {
    const email = newEmail('ar');
    expect((await post('signup', { email, password: PASSWORD })).statusCode).toBe(202);
    const mail = await mailTo(email);
    expect(mail.html).toContain('dir="rtl"');
    expect(mail.text).toContain(`${BASE}/developers/verify#`);
    expect((await get('/api/v1/developer/me', { cookie: cookieOf(await post('verify', { token: tokenIn(mail) })) })).json()).toMatchObject({ language: 'ar' });
  });

  it('tells the signed-out dashboard that sign-up is open and the plan client limits, without a session', async () => {
    const config = await get('/api/v1/developer/config');
    expect(config.statusCode).toBe(200);
    expect(config.json()).toEqual({ signup: 'open', clientsPerPlan: { Free: 1, Starter: 3, Professional: 10, Enterprise: 25 } });
  });

  it('refuses bad input with 400 problems', async () => {
    for (const body of [
      { email: 'not-an-address', password: PASSWORD },
      { email: newEmail('bad'), password: 'short' },
      { email: newEmail('bad'), password: 'x'.repeat(257) },
      { email: newEmail('bad'), password: 'password1234' },
      { email: newEmail('bad'), password: PASSWORD, language: 'fr' },
      { email: newEmail('bad'), password: PASSWORD, admin: true },
      { email: newEmail('bad') },
    ]) {
      const response = await post('signup', body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.headers['content-type']).toContain('application/problem+json');
    }
    expect((await post('verify', {})).statusCode).toBe(400);
    const { cookie } = await verifiedAccount();
    expect((await post('clients', { name: '' }, { cookie })).statusCode).toBe(400);
  });

  it('locks sign-in after 5 wrong passwords within 15 minutes, even for the right one (429 with Retry-After)', async () => {
    const { email } = await verifiedAccount();
    for (let attempt = 0; attempt < 4; attempt++) expect((await post('login', { email, password: 'wrong passphrase here' })).statusCode).toBe(401);
    expect((await post('login', { email, password: PASSWORD })).statusCode).toBe(200);
    for (let attempt = 0; attempt < 5; attempt++) expect((await post('login', { email, password: 'wrong passphrase here' })).statusCode).toBe(401);
    const locked = await post('login', { email, password: PASSWORD });
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(800);
    expect((await post('login', { email: 'nobody@example.com', password: PASSWORD })).statusCode).toBe(401);
  });

  it('refuses cross-site state changes with 403 and accepts the dashboard origin', async () => {
    const { cookie } = await verifiedAccount();
    const forged = await post('clients', { name: 'Forged' }, { cookie, origin: 'https://evil.example' });
    expect(forged.statusCode).toBe(403);
    expect((await post('clients', { name: 'Forged' }, { cookie, 'sec-fetch-site': 'cross-site' })).statusCode).toBe(403);
    expect((await post('logout', {}, { cookie, origin: 'https://evil.example' })).statusCode).toBe(403);
    const { clients } = (await get('/api/v1/developer/clients', { cookie })).json<{ clients: { id: string; name: string }[] }>();
    expect(clients.map((client) => client.name)).toEqual(['My first key']);
    const sameOrigin = await test.app.inject({ method: 'PATCH', url: `/api/v1/developer/clients/${clients[0]?.id}`, payload: { name: 'Mine' }, headers: { cookie, origin: BASE, 'sec-fetch-site': 'same-origin' } });
    expect(sameOrigin.statusCode).toBe(200);
  });

  it('keeps accounts apart, needs a session, and ends it on sign-out', async () => {
    const first = await verifiedAccount();
    const second = await verifiedAccount();
    const names = async (cookie: string) => (await get('/api/v1/developer/clients', { cookie })).json<{ clients: { id: string }[] }>().clients.map((client) => client.id);
    const [firstClients, secondClients] = [await names(first.cookie), await names(second.cookie)];
    expect(firstClients).toHaveLength(1);
    expect(secondClients).toHaveLength(1);
    expect(secondClients).not.toContain(firstClients[0]);
    expect((await get('/api/v1/developer/clients')).statusCode).toBe(401);
    expect((await get('/api/v1/developer/me', { cookie: 'fx_developer_session=fxs_forged' })).statusCode).toBe(401);
    const out = await post('logout', {}, { cookie: first.cookie });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toContain('Max-Age=0');
    expect((await get('/api/v1/developer/me', { cookie: first.cookie })).statusCode).toBe(401);
    expect((await get('/api/v1/developer/me', { cookie: second.cookie })).statusCode).toBe(200);
  });
});

describe('FX_SIGNUP=closed', () => {
  it('refuses sign-up with a 403 problem saying accounts are made by the operator', async () => {
    const test = await buildTestApp({ FX_SIGNUP: 'closed' });
    try {
      const response = await test.app.inject({ method: 'POST', url: '/api/v1/developer/signup', payload: { email: newEmail('closed'), password: PASSWORD } });
      expect(response.statusCode).toBe(403);
      expect(response.json<{ detail: string }>().detail).toContain('operator');
      const config = await test.app.inject({ method: 'GET', url: '/api/v1/developer/config' });
      expect(config.statusCode).toBe(200);
      expect(config.json()).toEqual({ signup: 'closed', clientsPerPlan: { Free: 1, Starter: 3, Professional: 10, Enterprise: 25 } });
    } finally {
      await test.close();
    }
  });
});

describe('the developer dashboard API: renaming and deactivating clients', () => {
  const started = useDeveloperApp();
  const accountWithClient = () => started.developer('keys');
  const patch = (id: string, cookie: string, payload: unknown) => started.app().app.inject({ method: 'PATCH', url: `/api/v1/developer/clients/${id}`, payload: payload as Record<string, unknown>, headers: { cookie } });

  it("renames and deactivates the account's own client (its keys then get 401), and 404s another account's", async () => {
    const mine = await accountWithClient();
    const theirs = await accountWithClient();
    const renamed = await patch(mine.keys.id, mine.cookie, { name: ' Renamed ' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({ id: mine.keys.id, name: 'Renamed', isActive: true });
    expect((await patch(theirs.keys.id, mine.cookie, { name: 'Stolen' })).statusCode).toBe(404);
    expect((await patch(theirs.keys.id, mine.cookie, { isActive: false })).statusCode).toBe(404);
    expect((await patch(mine.keys.id, mine.cookie, { isActive: true })).statusCode).toBe(400);
    expect((await patch('not-a-uuid', mine.cookie, { name: 'x' })).statusCode).toBe(400);
    const keyHeaders = { 'X-Api-Key': mine.keys.publicKey, 'X-Api-Secret': mine.keys.privateKey };
    expect((await started.app().app.inject({ method: 'GET', url: '/api/v1/client/me', headers: keyHeaders })).statusCode).toBe(200);
    expect((await patch(mine.keys.id, mine.cookie, { isActive: false })).json()).toMatchObject({ isActive: false });
    expect((await started.app().app.inject({ method: 'GET', url: '/api/v1/client/me', headers: keyHeaders })).statusCode).toBe(401);
    const other = { 'X-Api-Key': theirs.keys.publicKey, 'X-Api-Secret': theirs.keys.privateKey };
    expect((await started.app().app.inject({ method: 'GET', url: '/api/v1/client/me', headers: other })).statusCode).toBe(200);
  });
});
