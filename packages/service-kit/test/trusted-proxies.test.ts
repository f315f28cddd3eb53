import { describe, expect, it } from 'vitest';
import { createAddressMatcher, LOOPBACK_PROXIES } from '../src/index.js';

describe('createAddressMatcher', () => {
  it('trusts the listed addresses and ranges, IPv4-mapped IPv6 included, and nothing else', () => {
    const trusted = createAddressMatcher([...LOOPBACK_PROXIES, '10.1.0.0/16', '2001:db8::7']);
    for (const address of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1', '10.1.255.3', '2001:db8::7']) expect(trusted(address), address).toBe(true);
    for (const address of ['10.2.0.1', '192.0.2.1', '2001:db8::8', 'not an address', '', undefined]) expect(trusted(address), String(address)).toBe(false);
  });

  it('answers the same after more distinct peers than it remembers, asked twice each', () => {
    const trusted = createAddressMatcher(['10.0.0.0/8']);
    for (let round = 0; round < 2; round++) {
      for (let index = 0; index < 10_000; index++) {
        const address = `${index % 2 === 0 ? 10 : 11}.0.${Math.floor(index / 256)}.${index % 256}`;
        expect(trusted(address)).toBe(index % 2 === 0);
      }
    }
  });
});
