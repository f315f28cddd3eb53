import { ConfigError } from '@svc/service-kit';
import { describe, expect, it } from 'vitest';
import { loadIdentityConfig } from '../src/config.js';

describe('identity configuration', () => {
  it('defaults to port 3001 on loopback', () => {
    expect(loadIdentityConfig({})).toMatchObject({ PORT: 3001, HOST: '127.0.0.1', LOG_LEVEL: 'info' });
  });
  it('takes the WebAuthn origins from WEBAUTHN_ORIGINS, else from where the service is reachable', () => {
    expect(loadIdentityConfig({}).WEBAUTHN_ORIGINS, 'a relying party id cannot be an IP address').toEqual(['http://localhost:3001']);
    expect(loadIdentityConfig({ HOST: '::1', PORT: '3101' }).WEBAUTHN_ORIGINS).toEqual(['http://localhost:3101']);
    expect(loadIdentityConfig({ PUBLIC_BASE_URL: 'https://verify.example.com' }).WEBAUTHN_ORIGINS).toEqual(['https://verify.example.com']);
    expect(loadIdentityConfig({ WEBAUTHN_ORIGINS: 'http://localhost:3001, https://portal.example.com/' }).WEBAUTHN_ORIGINS).toEqual(['http://localhost:3001', 'https://portal.example.com']);
    expect(() => loadIdentityConfig({ WEBAUTHN_ORIGINS: 'https://portal.example.com/path' })).toThrow(/WEBAUTHN_ORIGINS/);
    expect(() => loadIdentityConfig({ WEBAUTHN_ORIGINS: 'not an origin' })).toThrow(/WEBAUTHN_ORIGINS/);
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
  it('needs the three inference URLs with CHECKS_PROVIDER=http, and thresholds in [0, 1]', () => {
    expect(() => loadIdentityConfig({ CHECKS_PROVIDER: 'http', CHECKS_OCR_URL: 'http://127.0.0.1:9000/ocr' })).toThrow(/CHECKS_FACE_MATCH_URL: is required with CHECKS_PROVIDER=http/);
    expect(() => loadIdentityConfig({ CHECKS_PROVIDER: 'grpc' })).toThrow(/CHECKS_PROVIDER: must be none, http or local/);
    expect(() => loadIdentityConfig({ CHECKS_OCR_URL: 'ftp://x/ocr' })).toThrow(/CHECKS_OCR_URL: must be an http\(s\) URL/);
    expect(() => loadIdentityConfig({ CHECKS_FACE_THRESHOLD: '1.5' })).toThrow(/CHECKS_FACE_THRESHOLD: must be from 0 to 1/);
    expect(() => loadIdentityConfig({ CHECKS_RETRY_SCHEDULE_MS: '0,x' })).toThrow(/CHECKS_RETRY_SCHEDULE_MS/);
    // The lease is renewed while checks run, so it is seconds whatever CHECKS_TIMEOUT_MS is.
    expect(loadIdentityConfig({}).JOB_LEASE_MS).toBe(6000);
    expect(() => loadIdentityConfig({ JOB_LEASE_MS: '500' })).toThrow(/JOB_LEASE_MS: must be at least 1000 ms/);
    expect(loadIdentityConfig({ JOB_LEASE_MS: '2000', CHECKS_TIMEOUT_MS: '60000' }).JOB_LEASE_MS).toBe(2000);
    expect(loadIdentityConfig({ CHECKS_PROVIDER: 'none' })).toMatchObject({ CHECKS_RETRY_SCHEDULE_MS: [0, 1000, 5000], CHECKS_OCR_THRESHOLD: 0.85, CHECKS_FACE_THRESHOLD: 0.8, CHECKS_LIVENESS_THRESHOLD: 0.8 });
  });

  it('runs the local checks by default on the embedded database, none with DATABASE_URL, each with its own thresholds', () => {
    expect(loadIdentityConfig({})).toMatchObject({ CHECKS_PROVIDER: 'local', CHECKS_OCR_THRESHOLD: 0.85, CHECKS_FACE_THRESHOLD: 0.6, CHECKS_LIVENESS_THRESHOLD: 0.9, CHECKS_FACE_REJECT_BELOW: 0.35, CHECKS_FFMPEG_PATH: 'ffmpeg' });
    expect(loadIdentityConfig({ DATABASE_URL: 'postgres://localhost/x', SECRETS_KEY: 'ab'.repeat(32) }).CHECKS_PROVIDER).toBe('none');
    expect(loadIdentityConfig({ CHECKS_PROVIDER: 'local', CHECKS_FACE_THRESHOLD: '0.7' })).toMatchObject({ CHECKS_FACE_THRESHOLD: 0.7, CHECKS_LIVENESS_THRESHOLD: 0.9 });
    expect(loadIdentityConfig({ CHECKS_PROVIDER: 'local', CHECKS_FACE_THRESHOLD: '0.3' }).CHECKS_FACE_REJECT_BELOW).toBe(0.3);
    expect(loadIdentityConfig({ CHECKS_PROVIDER: 'http', CHECKS_OCR_URL: 'http://a/o', CHECKS_FACE_MATCH_URL: 'http://a/f', CHECKS_LIVENESS_URL: 'http://a/l' }).CHECKS_FACE_REJECT_BELOW).toBe(0.5);
    expect(loadIdentityConfig({ CHECKS_PROVIDER: '' }).CHECKS_PROVIDER).toBe('local');
  });
  it('delivers webhooks 5 times on the spec schedule, https only, unless configured', () => {
    expect(loadIdentityConfig({})).toMatchObject({
      WEBHOOK_RETRY_SCHEDULE_MS: [0, 5000, 300000, 1800000, 7200000],
      WEBHOOK_TIMEOUT_MS: 30000,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: false,
      DELIVERY_LEASE_MS: 15000,
      DELIVERY_RETENTION_DAYS: 30,
    });
    expect(() => loadIdentityConfig({ WEBHOOK_RETRY_SCHEDULE_MS: '0,10,10' })).toThrow(/WEBHOOK_RETRY_SCHEDULE_MS: must list 5 delays, one per attempt/);
    expect(() => loadIdentityConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'yes' })).toThrow(/WEBHOOK_ALLOW_PRIVATE_TARGETS: must be true or false/);
    expect(() => loadIdentityConfig({ DELIVERY_LEASE_MS: '500' })).toThrow(/DELIVERY_LEASE_MS: must be at least 1000/);
    expect(() => loadIdentityConfig({ DELIVERY_RETENTION_DAYS: '0' })).toThrow(/DELIVERY_RETENTION_DAYS: must be at least 1/);
  });
});
