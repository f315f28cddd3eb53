import { ConfigError } from '@svc/service-kit';
import { describe, expect, it } from 'vitest';
import { loadFxConfig } from '../src/config.js';

describe('fx configuration', () => {
  it('defaults to port 3002 on loopback', () => {
    expect(loadFxConfig({})).toMatchObject({ PORT: 3002, HOST: '127.0.0.1', LOG_LEVEL: 'info' });
  });
  it('requires SECRETS_KEY when DATABASE_URL is set', () => {
    expect(() => loadFxConfig({ DATABASE_URL: 'postgres://localhost/fx' })).toThrow(ConfigError);
    expect(() => loadFxConfig({ DATABASE_URL: 'postgres://localhost/fx' })).toThrow(/SECRETS_KEY: is required/);
  });
});
