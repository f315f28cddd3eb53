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
});
