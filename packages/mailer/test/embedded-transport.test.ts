import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMailTransport, mailEnvironmentVariables, mailSettings, renderMail, senderDomain } from '../src/index.js';

describe('the embedded default: .eml files', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mailer-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('writes an RFC 5322 message under $DATA_DIR/<service>/mail that mailparser reads back, and logs its file and subject once', async () => {
    const lines: { fields: object; message: string }[] = [];
    const settings = mailSettings({ MAIL_FROM: '"Rates" <no-reply@fx.example.test>', MAIL_REPLY_TO: 'help@fx.example.test' }, dataDir, 'fx');
    const transport = createMailTransport(settings, { logger: { info: (fields, message) => lines.push({ fields, message }) } });
    expect(transport.kind).toBe('file');
    const rendered = renderMail({ subject: 'تم إيقاف التنبيه', paragraphs: ['توقف إرسال التنبيه بعد 10 محاولات فاشلة.'], action: { label: 'إعادة التفعيل', url: 'https://fx.example.test/x?a=1&b=2' } }, 'ar');
    const mail = { messageId: '<mail-1@fx.example.test>', to: 'client@example.com', ...rendered, language: 'ar', date: new Date('2026-11-28T10:00:00Z'), fileStem: 'stem-1' };
    await transport.send(mail);
    // A resend (a worker that died after writing) replaces the file rather than adding a second one.
    await transport.send(mail);
    transport.close();

    const directory = join(dataDir, 'fx', 'mail');
    expect(await readdir(directory)).toEqual(['stem-1.eml']);
    const raw = await readFile(join(directory, 'stem-1.eml'));
    expect(raw.includes('\r\n')).toBe(true);
    const parsed = await simpleParser(raw);
    expect(parsed.messageId).toBe('<mail-1@fx.example.test>');
    expect(parsed.subject).toBe('تم إيقاف التنبيه');
    expect(parsed.from?.text).toBe('"Rates" <no-reply@fx.example.test>');
    expect(parsed.replyTo?.text).toBe('help@fx.example.test');
    expect(parsed.date?.toISOString()).toBe('2026-11-28T10:00:00.000Z');
    expect(parsed.text).toContain('https://fx.example.test/x?a=1&b=2');
    expect(parsed.html).toContain('dir="rtl"');
    expect(parsed.html).toContain('href="https://fx.example.test/x?a=1&#38;b=2"');
    expect(lines).toHaveLength(2);
    expect(lines[0]?.fields).toMatchObject({ file: join(directory, 'stem-1.eml'), subject: 'تم إيقاف التنبيه' });
    expect(lines[0]?.message).toContain('stem-1.eml');
  });
});

describe('rendering', () => {
  it('escapes what templates interpolate and links nothing remote but the action', () => {
    const rendered = renderMail({ subject: 'Hi <b>', greeting: 'Hello,', paragraphs: ['<script>alert(1)</script> & more'], footnote: 'Ignore if not you.' }, 'en');
    expect(rendered.html).not.toContain('<script>');
    expect(rendered.html).toContain('&#60;script&#62;');
    expect(rendered.html).toContain('dir="ltr"');
    expect(rendered.html).not.toMatch(/<img|<link|src=|<style/i);
    expect(rendered.text).toBe('Hello,\n\n<script>alert(1)</script> & more\n\n--\nIgnore if not you.');
  });

  it('writes Sorani Kurdish right to left and Kurmanji left to right', () => {
    expect(renderMail({ subject: 's', paragraphs: [] }, 'ckb').html).toContain('dir="rtl"');
    expect(renderMail({ subject: 's', paragraphs: [] }, 'kmr').html).toContain('dir="ltr"');
  });
});

describe('settings', () => {
  const schema = z.object(mailEnvironmentVariables('"Service" <no-reply@localhost>'));

  it('takes smtp:// and smtps:// URLs and a "Name" <address> sender', () => {
    expect(schema.parse({ SMTP_URL: 'smtp://user:pass@mail.example.test:587', MAIL_FROM: '"Acme" <no-reply@acme.test>' })).toEqual({ SMTP_URL: 'smtp://user:pass@mail.example.test:587', MAIL_FROM: '"Acme" <no-reply@acme.test>' });
    expect(schema.parse({ SMTP_URL: 'smtps://user:pass@mail.example.test:465' }).MAIL_FROM).toBe('"Service" <no-reply@localhost>');
    expect(schema.parse({ SMTP_URL: '' }).SMTP_URL).toBeUndefined();
  });

  it('refuses other schemes and malformed senders with a message naming the form', () => {
    const bad = schema.safeParse({ SMTP_URL: 'http://mail.example.test', MAIL_FROM: 'Acme <no-reply>', MAIL_REPLY_TO: 'two@a.test, three@b.test' });
    expect(bad.success).toBe(false);
    const messages = bad.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    expect(messages).toEqual([
      'SMTP_URL: must be smtp://user:pass@host:587 (STARTTLS) or smtps://user:pass@host:465 (TLS)',
      'MAIL_FROM: must be an address or "Name" <address>',
      'MAIL_REPLY_TO: must be an address or "Name" <address>',
    ]);
  });

  it('makes Message-IDs under the sender\'s domain', () => {
    expect(senderDomain('"Acme" <No-Reply@Acme.Test>')).toBe('acme.test');
    expect(senderDomain('bare@example.org')).toBe('example.org');
  });
});
