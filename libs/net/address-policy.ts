import { BlockList, isIP } from 'node:net';

/**
 * Which addresses outgoing calls may reach. Everything that is not the public internet is
 * denied: a bot URL must not read the cloud metadata service, the database or the admin port
 * of anything on the server's own networks.
 */
const DENIED: [string, number, 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'], // "this network"
  ['10.0.0.0', 8, 'ipv4'], // RFC 1918
  ['100.64.0.0', 10, 'ipv4'], // CGNAT (RFC 6598)
  ['127.0.0.0', 8, 'ipv4'], // loopback
  ['169.254.0.0', 16, 'ipv4'], // link-local, cloud metadata
  ['172.16.0.0', 12, 'ipv4'], // RFC 1918
  ['192.0.0.0', 24, 'ipv4'], // IETF protocol assignments
  ['192.0.2.0', 24, 'ipv4'], // documentation
  ['192.88.99.0', 24, 'ipv4'], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16, 'ipv4'], // RFC 1918
  ['198.18.0.0', 15, 'ipv4'], // benchmarking
  ['198.51.100.0', 24, 'ipv4'], // documentation
  ['203.0.113.0', 24, 'ipv4'], // documentation
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved, and broadcast
  ['::', 128, 'ipv6'], // unspecified
  ['::1', 128, 'ipv6'], // loopback
  ['::', 96, 'ipv6'], // IPv4-compatible (deprecated)
  ['64:ff9b::', 96, 'ipv6'], // NAT64: embeds an IPv4 address (allowlist it where NAT64 is needed)
  ['64:ff9b:1::', 48, 'ipv6'], // local-use NAT64
  ['100::', 64, 'ipv6'], // discard-only
  ['2001::', 23, 'ipv6'], // IETF protocol assignments (Teredo, ORCHID, ...)
  ['2001:db8::', 32, 'ipv6'], // documentation
  ['2002::', 16, 'ipv6'], // 6to4: embeds an IPv4 address we would not check
  ['3fff::', 20, 'ipv6'], // documentation
  ['5f00::', 16, 'ipv6'], // SRv6 SIDs
  ['fc00::', 7, 'ipv6'], // unique local (RFC 4193)
  ['fe80::', 10, 'ipv6'], // link-local
  ['fec0::', 10, 'ipv6'], // site-local (deprecated)
  ['ff00::', 8, 'ipv6'], // multicast
];

const denied = new BlockList();
for (const [address, prefix, family] of DENIED) denied.addSubnet(address, prefix, family);

const familyOf = (address: string): 'ipv4' | 'ipv6' | null => {
  const v = isIP(address);
  return v === 4 ? 'ipv4' : v === 6 ? 'ipv6' : null;
};

/** The WHATWG URL parser keeps IPv6 literals in brackets. */
export const unbracket = (host: string): string => host.replace(/^\[(.*)\]$/, '$1');

export interface AddressPolicy {
  /** Whether a connection to `address` (reached through host name `host`) may be made. */
  allows(host: string, address: string): boolean;
}

/**
 * Denies the non-public ranges above (IPv4-mapped IPv6 addresses are checked as the IPv4
 * address they carry, which node's BlockList does), unless the host name or the address is on
 * the operator's allowlist (`OUTGOING_WEBHOOK_ALLOWED_HOSTS`: host names, addresses and CIDRs).
 */
export function addressPolicy(allowed: string[]): AddressPolicy {
  const allowedNames = new Set<string>();
  const allowedRanges = new BlockList();
  for (const entry of allowed) {
    const [address = '', prefix] = entry.split('/');
    const family = familyOf(address);
    if (!family) allowedNames.add(entry.toLowerCase().replace(/\.$/, ''));
    else if (prefix === undefined) allowedRanges.addAddress(address, family);
    else allowedRanges.addSubnet(address, Number(prefix), family);
  }
  return {
    allows(host, address) {
      const family = familyOf(address);
      if (!family) return false;
      if (allowedNames.has(unbracket(host).toLowerCase().replace(/\.$/, ''))) return true;
      if (allowedRanges.check(address, family)) return true;
      return !denied.check(address, family);
    },
  };
}
