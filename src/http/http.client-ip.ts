import { BlockList, isIP } from "node:net";

/** The client address of a request: the socket peer, or what trusted proxies say it was. */
export type ClientIpResolver = (peer: string | null, forwardedFor: string | null) => string | null;

const MAPPED_V4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** `::ffff:1.2.3.4` (an IPv4 peer on a dual-stack socket) as `1.2.3.4`; others unchanged. */
export function normalizeIp(address: string): string {
  // Every request passes here: skip the regex unless the address can be a mapped one.
  if (address.charCodeAt(0) !== 58 /* ":" */) return address;
  return MAPPED_V4.exec(address)?.[1] ?? address;
}

/**
 * Builds the resolver for `trusted_proxies` (decisions.md §6). X-Forwarded-For is read only when
 * the socket peer is trusted; its hops are walked right to left and the first one that is not a
 * trusted proxy is the client (entries to its left could be forged by the client itself). When
 * every hop is trusted the left-most is taken; a malformed hop ends the walk at the hop after it.
 */
export function createClientIpResolver(trustedCidrs: readonly string[]): ClientIpResolver {
  if (trustedCidrs.length === 0) return (peer) => (peer === null ? null : normalizeIp(peer));
  const trusted = blockListOf(trustedCidrs);
  const isTrusted = (ip: string) => trusted.check(ip, isIP(ip) === 6 ? "ipv6" : "ipv4");
  return (peer, forwardedFor) => {
    if (peer === null) return null;
    let client = normalizeIp(peer);
    if (!forwardedFor || !isTrusted(client)) return client;
    const hops = forwardedFor.split(",");
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = normalizeIp((hops[i] as string).trim());
      if (isIP(hop) === 0) return client;
      client = hop;
      if (!isTrusted(hop)) return hop;
    }
    return client;
  };
}

/** Whether a socket peer is one of the trusted proxies (`trusted_proxies` CIDRs). */
export function createProxyTrust(trustedCidrs: readonly string[]): (peer: string) => boolean {
  if (trustedCidrs.length === 0) return () => false;
  const trusted = blockListOf(trustedCidrs);
  return (peer) => {
    const ip = normalizeIp(peer);
    const family = isIP(ip);
    return family !== 0 && trusted.check(ip, family === 6 ? "ipv6" : "ipv4");
  };
}

function blockListOf(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address = "", bits] = cidr.split("/");
    const family = isIP(address) === 6 ? "ipv6" : "ipv4";
    if (bits === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(bits), family);
  }
  return list;
}

/** True for 127.0.0.0/8 and ::1 (mapped forms included): a client on this very machine. */
export function isLoopback(address: string): boolean {
  const ip = normalizeIp(address);
  return ip === "::1" || (isIP(ip) === 4 && ip.startsWith("127."));
}
