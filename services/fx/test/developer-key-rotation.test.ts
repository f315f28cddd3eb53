import type { InjectOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import { useDeveloperApp } from './developer-helpers.js';
import { manualClock } from './helpers.js';

const GRACE_SECONDS = 60;
const clock = manualClock('2026-11-02T10:00:00.000Z');

describe('rotating a client key on the developer dashboard', () => {
  const started = useDeveloperApp({ env: { FX_KEY_ROTATION_GRACE_SECONDS: String(GRACE_SECONDS) }, clock: clock.now });
  const inject = (options: InjectOptions) => started.app().app.inject(options);
  const rotate = (id: string, headers: Record<string, string>) => inject({ method: 'POST', url: `/api/v1/developer/clients/${id}/rotate`, headers });
  const clientMe = (publicKey: string, privateKey: string) => inject({ method: 'GET', url: '/api/v1/client/me', headers: { 'X-Api-Key': publicKey, 'X-Api-Secret': privateKey } });

  it('issues a new private key at once, keeps the old one working for the grace period, then answers 401 to it', async () => {
    const { email, cookie, keys } = await started.developer('rotate');
    const rotated = await rotate(keys.id, { cookie });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const body = rotated.json<{ id: string; publicKey: string; privateKey: string; previousKeyExpiresUtc: string }>();
    expect(body).toEqual({ id: keys.id, publicKey: keys.publicKey, privateKey: expect.stringMatching(/^svc_prv_[0-9a-f]{64}$/), previousKeyExpiresUtc: new Date(clock.now().getTime() + GRACE_SECONDS * 1000).toISOString() });
    expect(body.privateKey).not.toBe(keys.privateKey);
    // The new key is never readable again.
    expect((await inject({ method: 'GET', url: '/api/v1/developer/clients', headers: { cookie } })).body).not.toContain(body.privateKey);

    expect((await clientMe(keys.publicKey, body.privateKey)).statusCode).toBe(200);
    expect((await clientMe(keys.publicKey, keys.privateKey)).statusCode).toBe(200);
    clock.advance((GRACE_SECONDS - 1) * 1000);
    expect((await clientMe(keys.publicKey, keys.privateKey)).statusCode).toBe(200);
    clock.advance(1000);
    const expired = await clientMe(keys.publicKey, keys.privateKey);
    expect(expired.statusCode).toBe(401);
    expect(expired.headers['content-type']).toContain('application/problem+json');
    // The answer is the same as for any wrong key: it does not say the key was a real, old one.
    const wrong = await clientMe(keys.publicKey, `svc_prv_${'0'.repeat(64)}`);
    expect(expired.json().detail).toBe(wrong.json().detail);
    expect((await clientMe(keys.publicKey, body.privateKey)).statusCode).toBe(200);

    const mail = await started.mailTo(email, (subject) => subject === 'The private key of your API client was replaced');
    expect(mail.text).toContain(keys.publicKey);
    expect(mail.text).toContain('The old private key keeps working until 2026-11-02 10:01 UTC');
    expect(mail.text).not.toContain(body.privateKey);
    expect(mail.text).not.toContain(keys.privateKey);
  });

  it('ends the first old key at once when the key is rotated again within the grace period', async () => {
    const { cookie, keys } = await started.developer('twice');
    const first = (await rotate(keys.id, { cookie })).json<{ privateKey: string }>();
    const second = (await rotate(keys.id, { cookie })).json<{ privateKey: string }>();
    expect((await clientMe(keys.publicKey, keys.privateKey)).statusCode).toBe(401);
    expect((await clientMe(keys.publicKey, first.privateKey)).statusCode).toBe(200);
    expect((await clientMe(keys.publicKey, second.privateKey)).statusCode).toBe(200);
  });

  it("mails an Arabic account in Arabic, right to left", async () => {
    const { email, cookie, keys } = await started.developer('arabic', 'ar');
    expect((await rotate(keys.id, { cookie })).statusCode).toBe(200);
    const mail = await started.mailTo(email, (subject) => subject === 'تم استبدال المفتاح الخاص لعميل الواجهة البرمجية');
    expect(mail.html).toContain('dir="rtl"');
    expect(mail.text).toContain(keys.publicKey);
  });

  it("answers 404 for another account's client, 400 for a bad id, 401 without a session, 403 cross-site, 409 for a deactivated client", async () => {
    const mine = await started.developer('owner');
    const theirs = await started.developer('other');
    const refused = await rotate(theirs.keys.id, { cookie: mine.cookie });
    expect(refused.statusCode).toBe(404);
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect((await clientMe(theirs.keys.publicKey, theirs.keys.privateKey)).statusCode).toBe(200);
    expect((await rotate('00000000-0000-4000-8000-000000000000', { cookie: mine.cookie })).statusCode).toBe(404);
    const bad = await rotate('not-a-uuid', { cookie: mine.cookie });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toContain('client id');
    expect((await rotate(mine.keys.id, {})).statusCode).toBe(401);
    expect((await rotate(mine.keys.id, { cookie: mine.cookie, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).statusCode).toBe(403);
    // Nothing above changed the key.
    expect((await clientMe(mine.keys.publicKey, mine.keys.privateKey)).statusCode).toBe(200);

    await inject({ method: 'PATCH', url: `/api/v1/developer/clients/${mine.keys.id}`, headers: { cookie: mine.cookie }, payload: { isActive: false } });
    const dead = await rotate(mine.keys.id, { cookie: mine.cookie });
    expect(dead.statusCode).toBe(409);
    expect(dead.json().detail).toContain('deactivated');
  });
});

describe('FX_KEY_ROTATION_GRACE_SECONDS=0', () => {
  const started = useDeveloperApp({ env: { FX_KEY_ROTATION_GRACE_SECONDS: '0' } });

  it('ends the old key at once and says so', async () => {
    const { email, cookie, keys } = await started.developer('nograce');
    const rotated = await started.app().app.inject({ method: 'POST', url: `/api/v1/developer/clients/${keys.id}/rotate`, headers: { cookie } });
    expect(rotated.json()).toMatchObject({ previousKeyExpiresUtc: null });
    const old = await started.app().app.inject({ method: 'GET', url: '/api/v1/client/me', headers: { 'X-Api-Key': keys.publicKey, 'X-Api-Secret': keys.privateKey } });
    expect(old.statusCode).toBe(401);
    const mail = await started.mailTo(email, (subject) => subject.startsWith('The private key'));
    expect(mail.text).toContain('The old private key no longer works.');
  });
});
