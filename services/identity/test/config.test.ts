import { ConfigError } from '@svc/service-kit';
import { describe, expect, it } from 'vitest';
import { loadIdentityConfig } from '../src/config.js';

describe('identity configuration', () => {
  it('defaults to port 3001 on loopback', () => {
    expect(loadIdentityConfig({})).toMatchObject({ PORT: 3001, HOST: '127.0.0.1', LOG_LEVEL: 'info' });
  });
  it('requires SECRETS_KEY when DATABASE_URL is set', () => {
    expect(() => loadIdentityConfig({ DATABASE_URL: 'postgres://localhost/identity' })).toThrow(ConfigError);
    expect(() => loadIdentityConfig({ DATABASE_URL: 'postgres://localhost/identity' })).toThrow(/SECRETS_KEY: is required/);
  });
  it('trusts loopback proxies by default, parses addresses and CIDRs, and names a bad entry', () => {
    expect(loadIdentityConfig({}).TRUSTED_PROXIES).toEqual(['127.0.0.0/8', '::1']);
    expect(loadIdentityConfig({ TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.1,fd00::/8' }).TRUSTED_PROXIES).toEqual(['10.0.0.0/8', '192.0.2.1', 'fd00::/8']);
    expect(loadIdentityConfig({ TRUSTED_PROXIES: 'none' }).TRUSTED_PROXIES).toEqual([]);
    expect(() => loadIdentityConfig({ TRUSTED_PROXIES: '10.0.0.0/33' })).toThrow(/TRUSTED_PROXIES: "10.0.0.0\/33" is not an IP address or CIDR range/);
  });
  it('needs TLS_CERT and TLS_KEY together, as readable files', () => {
    expect(() => loadIdentityConfig({ TLS_CERT: '/etc/hostname' })).toThrow(/TLS_KEY: TLS_CERT and TLS_KEY must be set together/);
    expect(() => loadIdentityConfig({ TLS_CERT: '/no/such.crt', TLS_KEY: '/no/such.key' })).toThrow(/cannot read \/no\/such.crt: ENOENT/);
  });
  it('limits 120 requests per minute unless configured', () => {
    expect(loadIdentityConfig({}).RATE_LIMIT_PER_MINUTE).toBe(120);
    expect(() => loadIdentityConfig({ RATE_LIMIT_PER_MINUTE: '0' })).toThrow(/RATE_LIMIT_PER_MINUTE/);
  });
});
