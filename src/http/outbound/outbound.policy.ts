import {
  type CidrRange,
  formatIp,
  type IpAddress,
  inRange,
  parseCidr,
  parseIp,
} from "./outbound.address.ts";
import { carriedIpv4 } from "./outbound.embedded.ts";

/**
 * Denied whatever the operator configures, unless `WEIR_OUTBOUND_ALLOW` names them (decisions.md
 * §14): "this host" (0.0.0.0/8, ::), link-local (cloud metadata lives at 169.254.169.254),
 * multicast and broadcast. Loopback and private ranges stay allowed: homelabs forward to their LAN.
 */
export const BUILT_IN_DENY: readonly string[] = [
  "0.0.0.0/8",
  "169.254.0.0/16",
  "224.0.0.0/4",
  "255.255.255.255/32",
  "::/128",
  "fe80::/10",
  "ff00::/8",
];

/** Loopback and private ranges: what an operator of a shared instance usually adds to the deny list. */
export const LOCAL_NETWORK_RANGES: readonly string[] = [
  "127.0.0.0/8",
  "10.0.0.0/8",
  "172.16.0.0/12",
  "192.168.0.0/16",
  "100.64.0.0/10",
  "::1/128",
  "fc00::/7",
];

export type PolicyVerdict = { allowed: true } | { allowed: false; reason: string };

/** The one outbound address check: every server-side request passes it before it connects. */
export interface OutboundPolicy {
  /**
   * The verdict on one resolved or literal address; text that is not an address is denied. An
   * IPv6 address carrying an IPv4 one (NAT64, 6to4, IPv4-compatible, Teredo) is denied when
   * either is, unless an allow rule covers the IPv6 address or every IPv4 address it carries.
   */
  checkAddress(address: string): PolicyVerdict;
  /**
   * The verdict on a target URL as saved: its host when it is an address (in any form the URL
   * parser turns into one) or a `localhost` name; other names are judged when they are resolved.
   */
  checkUrl(url: string): PolicyVerdict;
}

export interface PolicyRules {
  /** Added to the built-in deny list. */
  deny: readonly string[];
  /** Wins over every deny rule, built-in ones included. */
  allow: readonly string[];
}

const ALLOWED: PolicyVerdict = { allowed: true };
const LOOPBACK = ["127.0.0.1", "::1"];

/** Builds the policy; a rule that is not a CIDR throws (config validation catches it first). */
export function createOutboundPolicy(rules: PolicyRules): OutboundPolicy {
  const deny = [...BUILT_IN_DENY, ...rules.deny].map(rangeOf);
  const allow = rules.allow.map(rangeOf);

  function checkAddress(address: string): PolicyVerdict {
    const ip = parseIp(address);
    if (!ip) return { allowed: false, reason: `${address} is not an IP address` };
    if (isAllowed(ip)) return ALLOWED;
    const carried = carriedIpv4(ip);
    // Allowing an IPv4 range allows its hosts whatever the path: their NAT64 or 6to4 forms too.
    if (carried.length > 0 && carried.every((inner) => isAllowed(inner.ip))) return ALLOWED;
    const rule = deniedBy(ip);
    if (rule) return refusal(isMapped(address, ip) ? formatIp(ip) : address, rule);
    for (const inner of carried) {
      const innerRule = isAllowed(inner.ip) ? undefined : deniedBy(inner.ip);
      if (innerRule) {
        return refusal(`${address} (${inner.form} form of ${formatIp(inner.ip)})`, innerRule);
      }
    }
    return ALLOWED;
  }

  function isAllowed(ip: IpAddress): boolean {
    return allow.some((range) => inRange(range, ip));
  }

  function deniedBy(ip: IpAddress): CidrRange | undefined {
    return deny.find((range) => inRange(range, ip));
  }

  function checkUrl(url: string): PolicyVerdict {
    const host = hostOf(url);
    if (host === null) return { allowed: false, reason: `${url} is not a URL` };
    if (parseIp(host)) return checkAddress(host);
    if (isLocalhostName(host)) {
      return LOOPBACK.map(checkAddress).find((verdict) => !verdict.allowed) ?? ALLOWED;
    }
    return ALLOWED;
  }

  return { checkAddress, checkUrl };
}

/** RFC 6761: `localhost` and every name under it resolve to loopback, whatever DNS says. */
export function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/** The URL's host as the URL parser canonicalizes it (`0x7f.1` → `127.0.0.1`), brackets removed. */
export function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, "");
  } catch {
    return null;
  }
}

/**
 * True when some loopback or private address may be reached under these rules (doctor warns on
 * open registration): a local range not wholly inside one deny rule, or one an allow rule touches.
 */
export function allowsLocalNetworks(rules: PolicyRules): boolean {
  const deny = [...BUILT_IN_DENY, ...rules.deny].map(rangeOf);
  const allow = rules.allow.map(rangeOf);
  return LOCAL_NETWORK_RANGES.map(rangeOf).some(
    (local) =>
      allow.some((range) => overlaps(range, local)) ||
      !deny.some((range) => contains(range, local)),
  );
}

function contains(outer: CidrRange, inner: CidrRange): boolean {
  return outer.bits <= inner.bits && inRange(outer, { family: inner.family, value: inner.base });
}

function overlaps(a: CidrRange, b: CidrRange): boolean {
  return contains(a, b) || contains(b, a);
}

/** `::ffff:a.b.c.d` is shown as the IPv4 address it is. */
function isMapped(address: string, ip: IpAddress): boolean {
  return ip.family === 4 && address.includes(":");
}

function refusal(shown: string, rule: CidrRange): PolicyVerdict {
  return {
    allowed: false,
    reason: `${shown} is denied by the outbound address policy (${rule.text})`,
  };
}

function rangeOf(text: string): CidrRange {
  const range = parseCidr(text);
  if (!range) throw new Error(`"${text}" is not an IP address or CIDR`);
  return range;
}
