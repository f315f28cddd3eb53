import { BlockList, isIP } from 'node:net';
import { z } from 'zod';

/** What "loopback only" means: all of 127.0.0.0/8 and ::1, not just 127.0.0.1. */
export const LOOPBACK_PROXIES = ['127.0.0.0/8', '::1'];

function parseEntry(entry: string): { address: string; prefix?: number; family: 'ipv4' | 'ipv6' } | null {
  const [address = '', prefixText, extra] = entry.split('/');
  if (extra !== undefined) return null;
  const version = isIP(address);
  if (version === 0) return null;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  if (prefixText === undefined) return { address, family };
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  if (prefix > (version === 4 ? 32 : 128)) return null;
  return { address, prefix, family };
}

/**
 * TRUSTED_PROXIES: comma-separated addresses and CIDR ranges whose forwarded headers
 * (X-Forwarded-For, client-certificate headers) are believed. `defaults` applies when unset;
 * the literal `none` trusts no proxy at all.
 */
export function trustedProxiesVariable(defaults: string[]) {
  return z.preprocess(
    (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
    z
      .string()
      .optional()
      .transform((value, context) => {
        if (value === undefined) return defaults;
        if (value.trim().toLowerCase() === 'none') return [];
        const entries = value.split(',').map((entry) => entry.trim()).filter((entry) => entry.length > 0);
        for (const entry of entries) {
          if (!parseEntry(entry)) context.addIssue({ code: 'custom', message: `"${entry}" is not an IP address or CIDR range` });
        }
        return entries;
      }),
  );
}

const MAX_REMEMBERED_ADDRESSES = 4096;

/**
 * A predicate over socket addresses. Node's BlockList matches IPv4-mapped IPv6 addresses
 * (::ffff:127.0.0.1, what a dual-stack socket reports) against IPv4 rules as well.
 */
export function createAddressMatcher(entries: readonly string[]): (address: string | undefined) => boolean {
  const list = new BlockList();
  for (const entry of entries) {
    const parsed = parseEntry(entry);
    if (!parsed) throw new Error(`"${entry}" is not an IP address or CIDR range`);
    if (parsed.prefix === undefined) list.addAddress(parsed.address, parsed.family);
    else list.addSubnet(parsed.address, parsed.prefix, parsed.family);
  }
  // Asked several times per request (Fastify's trustProxy, the certificate headers) for the same
  // few peers, and BlockList.check builds a SocketAddress each time: answers are remembered, in a
  // bounded map that is simply emptied when full.
  const answers = new Map<string, boolean>();
  return (address) => {
    if (!address) return false;
    let trusted = answers.get(address);
    if (trusted === undefined) {
      const version = isIP(address);
      trusted = version !== 0 && list.check(address, version === 4 ? 'ipv4' : 'ipv6');
      if (answers.size >= MAX_REMEMBERED_ADDRESSES) answers.clear();
      answers.set(address, trusted);
    }
    return trusted;
  };
}
