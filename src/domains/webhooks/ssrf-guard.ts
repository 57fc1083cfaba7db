import ipaddr from 'ipaddr.js';
import dns from 'node:dns';
import net from 'node:net';

/**
 * Why an address must not be connected to (its range: loopback, private, linkLocal, carrierGradeNat,
 * unspecified, multicast, broadcast, reserved, uniqueLocal, the IPv6 forms embedding an IPv4
 * address, ...), or undefined for a public unicast address. IPv4-mapped IPv6 addresses are judged
 * as the IPv4 address they carry.
 */
export function blockedAddressReason(address: string): string | undefined {
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  if (net.isIP(bare) === 0) return 'not an IP address';
  let ip: ipaddr.IPv4 | ipaddr.IPv6 = ipaddr.parse(bare);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  const range = ip.range();
  return range === 'unicast' ? undefined : range;
}

/** A connection refused because of the address it would reach. */
export class BlockedAddressError extends Error {
  readonly code = 'WEBHOOK_ADDRESS_BLOCKED';
  constructor(host: string, address: string, reason: string) {
    super(`refused to connect to ${host === address ? address : `${host} (${address})`}: ${reason} address`);
    this.name = 'BlockedAddressError';
  }
}

export type Resolver = (hostname: string, family: number) => Promise<dns.LookupAddress[]>;

export const systemResolver: Resolver = (hostname, family) => dns.promises.lookup(hostname, { all: true, family, verbatim: true });

/**
 * A `lookup` for net/tls.connect that resolves and, when `check` is on, refuses when any resolved
 * address is not public. The socket connects to exactly the addresses vetted here, so a DNS answer
 * that changes between a check and the connection (rebinding) cannot slip through.
 */
export function guardedLookup(resolve: Resolver = systemResolver, check = true): net.LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
    resolve(hostname, family).then(
      (addresses) => {
        if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
        for (const a of check ? addresses : []) {
          const reason = blockedAddressReason(a.address);
          if (reason) return callback(new BlockedAddressError(hostname, a.address, reason), '', 0);
        }
        if (options.all) return (callback as unknown as (err: null, addresses: dns.LookupAddress[]) => void)(null, addresses);
        const first = addresses[0] as dns.LookupAddress;
        return callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}

/** Refuses a URL host at registration when it is obviously local (a literal private address or localhost). */
export function blockedHostReason(hostname: string): string | undefined {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase().replace(/\.$/, '');
  if (net.isIP(bare)) return blockedAddressReason(bare);
  if (bare === 'localhost' || bare.endsWith('.localhost')) return 'loopback';
  return undefined;
}
