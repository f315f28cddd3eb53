import { randomUUID } from 'node:crypto';
import type { SmtpSink } from '@svc/mailer/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portalUsers } from '../src/db/schema.js';
import { createCase, partnerWithToken, type Partner } from './case-helpers.js';
import { startSignedReceiver, type SignedReceiver } from './fixtures/signed-receiver.js';
import { BASE, PASSWORD, type TestApp } from './helpers.js';
import { mailArriving, startMailingApp } from './smtp-mail-fixture.js';

const SUBJECT = 'A webhook endpoint was disabled';
const SUBJECT_AR = 'تم تعطيل نقطة استقبال webhook';

describe("a webhook endpoint disabled by its receiver mails the tenant's PartnerAdmins", () => {
  let test: TestApp;
  let sink: SmtpSink;
  let receiver: SignedReceiver;
  let partner: Partner;
  let other: Partner;

  beforeAll(async () => {
    ({ test, sink } = await startMailingApp(() => new Date(), { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '0,20,20,20,20', WEBHOOK_TIMEOUT_MS: '400' }));
    receiver = await startSignedReceiver();
    partner = await partnerWithToken(test, 'Acme', undefined, { sandbox: true });
    other = await partnerWithToken(test, 'Globex', undefined, { sandbox: true });
  });
  afterAll(async () => {
    await test?.close();
    await sink?.stop();
    await receiver?.close();
  });

  const mailsTo = (to: string) => sink.messages.filter((message) => message.to && !Array.isArray(message.to) && message.to.text === to);
  async function member(who: Partner, role: string, status = 'active') {
    const email = `${role.toLowerCase()}-${randomUUID()}@example.com`;
    await test.db.insert(portalUsers).values({ tenantId: who.tenantId, email, role, status, passwordHash: 'not used by this test' });
    return email;
  }

  it('mails each active PartnerAdmin, once, in the language they last signed in with, with the URL, the last error and a working link to the webhooks screen; nobody else', async () => {
    // The first admin signs in from an Arabic page: the worker's mail to them is Arabic; the second never said, so English.
    const signIn = await test.app.inject({ method: 'POST', url: `${BASE}/portal/login`, headers: { 'accept-language': 'ar' }, payload: { email: partner.email, password: PASSWORD } });
    expect(signIn.statusCode, signIn.body).toBe(200);
    const secondAdmin = await member(partner, 'PartnerAdmin');
    const readOnly = await member(partner, 'PartnerReadOnly');
    const disabledAdmin = await member(partner, 'PartnerAdmin', 'disabled');
    const created = await test.app.inject({ method: 'POST', url: `${BASE}/webhooks`, headers: partner.headers, payload: { url: receiver.url('/gone'), eventTypes: ['verification.session_issued'] } });
    expect(created.statusCode, created.body).toBe(201);
    receiver.answer('/gone', () => ({ status: 410 }));
    await createCase(test, partner);
    await createCase(test, partner);
    await expect.poll(async () => {
      await test.worker.deliverWebhooks();
      return (await test.app.inject({ method: 'GET', url: `${BASE}/webhooks/${created.json<{ endpoint: { id: string } }>().endpoint.id}`, headers: partner.headers })).json<{ isActive: boolean }>().isActive;
    }, { timeout: 30_000 }).toBe(false);

    for (const [admin, subject] of [[partner.email, SUBJECT_AR], [secondAdmin, SUBJECT]] as const) {
      const mail = await mailArriving(test, sink, admin, subject);
      if (subject === SUBJECT_AR) expect(mail.html).toContain('<html lang="ar" dir="rtl">');
      else expect(mail.html).toContain('<html lang="en" dir="ltr">');
      expect(mail.from?.value[0]?.address).toBe('no-reply@mail.example.test');
      expect(mail.messageId).toMatch(/^<mail-[0-9a-f-]{36}@mail\.example\.test>$/);
      expect(mail.text).toContain(receiver.url('/gone'));
      expect(mail.text).toContain('410 Gone');
      expect(mail.text).toContain('https://kyc.example.test/portal/webhooks');
      expect(mail.html).toContain('https://kyc.example.test/portal/webhooks');
      // The link works: the portal serves its webhooks screen at that path.
      const screen = await test.app.inject({ method: 'GET', url: new URL(/https:\/\/kyc\.example\.test\/portal\/webhooks\S*/.exec(mail.text ?? '')?.[0] ?? '').pathname });
      expect(screen.statusCode).toBe(200);
      expect(screen.headers['content-type']).toContain('text/html');
    }
    await test.worker.deliverWebhooks();
    await test.worker.sendMails();
    expect(mailsTo(partner.email)).toHaveLength(1);
    for (const bystander of [readOnly, disabledAdmin, other.email]) expect(mailsTo(bystander)).toEqual([]);
  });
});
