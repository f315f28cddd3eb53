import { describe, expect, it } from 'vitest';
import { isPublicAddress, nonPublicReason } from '../src/index.js';

describe('nonPublicReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private (RFC 1918)'],
    ['172.16.0.1', 'private (RFC 1918)'],
    ['172.31.255.255', 'private (RFC 1918)'],
    ['192.168.1.1', 'private (RFC 1918)'],
    ['::ffff:192.168.1.1', 'private (RFC 1918)'],
    ['169.254.169.254', 'link-local (includes cloud metadata 169.254.169.254)'],
    ['100.64.0.1', 'carrier-grade NAT (RFC 6598)'],
    ['0.0.0.0', 'unspecified ("this network")'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved (includes broadcast)'],
    ['fd12:3456::1', 'unique local (RFC 4193)'],
    ['fe80::1', 'link-local'],
    ['64:ff9b::7f00:1', 'NAT64 (reaches IPv4 behind the gateway)'],
    ['2002:7f00:1::', '6to4 (embeds an IPv4 address)'],
    ['not-an-ip', 'not an IP address'],
  ])('%s is %s', (address, reason) => {
    expect(nonPublicReason(address)).toBe(reason);
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])('%s is public', (address) => {
    expect(nonPublicReason(address)).toBeNull();
  });
});
