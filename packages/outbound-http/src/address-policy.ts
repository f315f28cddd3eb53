import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook must never reach: everything that is not the public internet.
 * Node's BlockList also matches IPv4-mapped IPv6 (::ffff:127.0.0.1) against the IPv4
 * rules, which closes the usual bypass.
 */
const NON_PUBLIC_RANGES: ReadonlyArray<readonly [network: string, prefix: number, type: 'ipv4' | 'ipv6', why: string]> = [
  ['0.0.0.0', 8, 'ipv4', 'unspecified ("this network")'],
  ['10.0.0.0', 8, 'ipv4', 'private (RFC 1918)'],
  ['100.64.0.0', 10, 'ipv4', 'carrier-grade NAT (RFC 6598)'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['169.254.0.0', 16, 'ipv4', 'link-local (includes cloud metadata 169.254.169.254)'],
  ['172.16.0.0', 12, 'ipv4', 'private (RFC 1918)'],
  ['192.0.0.0', 24, 'ipv4', 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'ipv4', 'documentation (TEST-NET-1)'],
  ['192.88.99.0', 24, 'ipv4', '6to4 relay anycast'],
  ['192.168.0.0', 16, 'ipv4', 'private (RFC 1918)'],
  ['198.18.0.0', 15, 'ipv4', 'benchmarking'],
  ['198.51.100.0', 24, 'ipv4', 'documentation (TEST-NET-2)'],
  ['203.0.113.0', 24, 'ipv4', 'documentation (TEST-NET-3)'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved (includes broadcast)'],
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  ['64:ff9b::', 96, 'ipv6', 'NAT64 (reaches IPv4 behind the gateway)'],
  ['64:ff9b:1::', 48, 'ipv6', 'local NAT64'],
  ['100::', 64, 'ipv6', 'discard-only'],
  ['2001:db8::', 32, 'ipv6', 'documentation'],
  ['2002::', 16, 'ipv6', '6to4 (embeds an IPv4 address)'],
  ['fc00::', 7, 'ipv6', 'unique local (RFC 4193)'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['fec0::', 10, 'ipv6', 'site-local (deprecated)'],
  ['ff00::', 8, 'ipv6', 'multicast'],
];

const blockList = new BlockList();
for (const [network, prefix, type] of NON_PUBLIC_RANGES) blockList.addSubnet(network, prefix, type);

/** Why an address is not public, or null when it is a public unicast address. */
export function nonPublicReason(address: string): string | null {
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (!blockList.check(address, type)) return null;
  for (const [network, prefix, rangeType, why] of NON_PUBLIC_RANGES) {
    const single = new BlockList();
    single.addSubnet(network, prefix, rangeType);
    if (single.check(address, type)) return why;
  }
  return 'not a public address';
}

export function isPublicAddress(address: string): boolean {
  return nonPublicReason(address) === null;
}
