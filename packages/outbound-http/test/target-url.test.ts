import type { lookup } from 'node:dns/promises';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '@svc/problem-json';
import { TargetUrlError, validateTargetUrl, validateTargetUrlField } from '../src/index.js';

const strict = { allowPrivateTargets: false };
const resolvesTo = (...addresses: string[]) =>
  (async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))) as unknown as typeof lookup;

async function reasonFor(url: string, resolve?: typeof lookup, policy = strict): Promise<string> {
  try {
    await validateTargetUrl(url, policy, resolve);
  } catch (error) {
    expect(error).toBeInstanceOf(TargetUrlError);
    return (error as TargetUrlError).reason;
  }
  return 'accepted';
}

describe('validateTargetUrl', () => {
  it('accepts a public https URL and normalises it', async () => {
    expect(await validateTargetUrl('https://Hooks.Example.com/alerts?x=1', strict, resolvesTo('93.184.216.34'))).toBe('https://hooks.example.com/alerts?x=1');
  });

  it.each([
    ['http://hooks.example.com/x', 'must use https://'],
    ['ftp://hooks.example.com/x', 'must use https://'],
    ['not a url', 'is not a valid absolute URL'],
    ['https://user:pw@hooks.example.com/x', 'must not contain credentials'],
    ['https://hooks.example.com/x#frag', 'must not contain a fragment'],
    [`https://hooks.example.com/${'a'.repeat(480)}`, 'must be at most 500 characters'],
    ['https://127.0.0.1/x', 'must be a public address (127.0.0.1 is loopback)'],
    ['https://[::1]/x', 'must be a public address (::1 is loopback)'],
    ['https://169.254.169.254/latest/meta-data', 'must be a public address (169.254.169.254 is link-local (includes cloud metadata 169.254.169.254))'],
    ['https://localhost/x', 'must be a public host name (localhost is local)'],
    ['https://intranet/x', 'must be a public host name (intranet is local)'],
  ])('refuses %s: %s', async (url, reason) => {
    expect(await reasonFor(url, resolvesTo('93.184.216.34'))).toBe(reason);
  });

  it('refuses a host name that resolves to any private address', async () => {
    expect(await reasonFor('https://evil.example.com/x', resolvesTo('93.184.216.34', '10.0.0.5'))).toBe(
      'must be a public host (evil.example.com resolves to 10.0.0.5, private (RFC 1918))',
    );
  });

  it('refuses a host name that does not resolve', async () => {
    const failing = (async () => {
      throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
    }) as unknown as typeof lookup;
    expect(await reasonFor('https://nowhere.invalid/x', failing)).toBe('host nowhere.invalid does not resolve');
  });

  it('with private targets allowed (development only), accepts http:// and loopback', async () => {
    expect(await validateTargetUrl('http://127.0.0.1:8080/hook', { allowPrivateTargets: true })).toBe('http://127.0.0.1:8080/hook');
    expect(await reasonFor('ftp://127.0.0.1/x', undefined, { allowPrivateTargets: true })).toBe('must use https:// or http://');
  });
});

describe('validateTargetUrlField', () => {
  it("answers an unusable URL with a 400 naming the client's field, and passes a good one through", async () => {
    const field = { name: 'webhookUrl', path: 'body.webhookUrl' };
    const refusal = await validateTargetUrlField('http://hooks.example.com/x', strict, field).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ValidationError);
    expect((refusal as ValidationError).status).toBe(400);
    expect((refusal as ValidationError).detail).toBe('webhookUrl must use https://.');
    expect((refusal as ValidationError).extensions).toEqual({ errors: [{ path: 'body.webhookUrl', message: 'must use https://' }] });
    expect(await validateTargetUrlField('http://127.0.0.1:8080/hook', { allowPrivateTargets: true }, field)).toBe('http://127.0.0.1:8080/hook');
  });
});
