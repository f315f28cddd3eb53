import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disclaimer as ar } from '../src/i18n/ar.js';
import { disclaimer as de } from '../src/i18n/de.js';
import { disclaimer as en } from '../src/i18n/en.js';
import { disclaimer as kmr } from '../src/i18n/kmr.js';
import { disclaimer as ku } from '../src/i18n/ku.js';
import { disclaimer as tr } from '../src/i18n/tr.js';
import { buildTestApp, type TestApp } from './helpers.js';

let testApp: TestApp;
beforeAll(async () => {
  testApp = await buildTestApp({ RATE_LIMIT_ANON_PER_MINUTE: '1000', RATE_LIMIT_ANON_PER_HOUR: '1000' });
});
afterAll(async () => {
  await testApp.close();
});

const disclaimers = { ar, en, de, tr, ku, kmr };

async function disclaimerOf(url: string, headers: Record<string, string> = {}) {
  const response = await testApp.app.inject({ method: 'GET', url, headers });
  expect(response.statusCode).toBe(200);
  return response.json<{ disclaimer: string }>().disclaimer;
}

describe('disclaimer language', () => {
  it('has six distinct real translations', () => {
    expect(new Set(Object.values(disclaimers)).size).toBe(6);
    expect(ku).toMatch(/[\u0600-\u06FF]/);
    expect(kmr).toMatch(/^[\p{Script=Latin}\s.,;]+$/u);
  });

  for (const [language, text] of Object.entries(disclaimers)) {
    it(`serves ${language} via lang on latest and usd-based`, async () => {
      expect(await disclaimerOf(`/api/v1/rates/latest?lang=${language}`)).toBe(text);
      expect(await disclaimerOf(`/api/v1/rates/usd-based?lang=${language}`)).toBe(text);
    });

    it(`serves ${language} via Accept-Language q-values`, async () => {
      const tag = language === 'ku' ? 'ckb-IQ' : `${language}-XX`;
      expect(await disclaimerOf('/api/v1/rates/latest', { 'Accept-Language': `fr;q=0.9, ${tag};q=0.8, es;q=0.95, en;q=0.1` })).toBe(language === 'en' ? en : text);
    });
  }

  it('prefers the highest q, not the first listed, and falls back to Arabic', async () => {
    expect(await disclaimerOf('/api/v1/rates/latest', { 'Accept-Language': 'en;q=0.2, de;q=0.7' })).toBe(de);
    expect(await disclaimerOf('/api/v1/rates/latest', { 'Accept-Language': 'tr, en;q=0.9' })).toBe(tr);
    expect(await disclaimerOf('/api/v1/rates/latest', { 'Accept-Language': 'de;q=0, fr' })).toBe(ar);
    expect(await disclaimerOf('/api/v1/rates/latest', { 'Accept-Language': 'ku' })).toBe(ku);
    expect(await disclaimerOf('/api/v1/rates/latest')).toBe(ar);
    expect(await disclaimerOf('/api/v1/rates/latest?lang=en', { 'Accept-Language': 'de' })).toBe(en);
  });

  it('answers 400 naming lang for an unsupported language', async () => {
    const response = await testApp.app.inject({ method: 'GET', url: '/api/v1/rates/latest?lang=fr' });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors).toEqual([{ path: 'query.lang', message: 'must be one of ar, en, de, tr, ku, kmr' }]);
  });
});
