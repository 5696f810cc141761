/**
 * IP addresses and CIDR ranges as numbers, so the outbound policy can compare any textual form
 * the same way. Pure: no DNS, no sockets.
 */

/** An address reduced to its family and value; IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is IPv4. */
export interface IpAddress {
  family: 4 | 6;
  value: bigint;
}

/** A range: the addresses whose first `bits` bits equal those of `base`. */
export interface CidrRange {
  text: string;
  family: 4 | 6;
  base: bigint;
  bits: number;
}

const MAPPED_V4_PREFIX = 0xffffn << 32n;
const V4_MASK = 0xffff_ffffn;

/**
 * Parses one address as a resolver or a socket reports it: dotted-quad IPv4, or IPv6 in any
 * valid spelling (a `%zone` suffix is ignored). Other text (names, shorthand like `127.1`) → null;
 * such forms are canonicalized by the URL parser before they get here.
 */
export function parseIp(text: string): IpAddress | null {
  const address = text.trim().replace(/^\[|\]$/g, "");
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(address)) return parseIpv4(address);
  if (!address.includes(":")) return null;
  const value = parseIpv6(address.replace(/%.*$/, ""));
  if (value === null) return null;
  if (value >> 32n === MAPPED_V4_PREFIX >> 32n) return { family: 4, value: value & V4_MASK };
  return { family: 6, value };
}

/** `a.b.c.d/n`, `x::y/n`, or a bare address (one host); null when not a valid range. */
export function parseCidr(text: string): CidrRange | null {
  const [address = "", bits, extra] = text.trim().split("/");
  if (extra !== undefined) return null;
  const ip = parseIp(address);
  if (!ip) return null;
  // A mapped range (`::ffff:169.254.0.0/112`) is the IPv4 range it maps.
  const isMapped = ip.family === 4 && address.includes(":");
  const max = ip.family === 4 ? 32 : 128;
  let prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : -1;
  if (isMapped && bits !== undefined) prefix -= 96;
  if (prefix < 0 || prefix > max) return null;
  return { text: text.trim(), family: ip.family, base: ip.value, bits: prefix };
}

/** True when `ip` lies in `range`. */
export function inRange(range: CidrRange, ip: IpAddress): boolean {
  if (range.family !== ip.family) return false;
  const width = BigInt(ip.family === 4 ? 32 : 128);
  const shift = width - BigInt(range.bits);
  return ip.value >> shift === range.base >> shift;
}

/** The address as text again (IPv4 dotted, IPv6 as eight groups without compression). */
export function formatIp(ip: IpAddress): string {
  if (ip.family === 4) {
    return [24n, 16n, 8n, 0n].map((shift) => String((ip.value >> shift) & 0xffn)).join(".");
  }
  const groups: string[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) {
    groups.push(((ip.value >> shift) & 0xffffn).toString(16));
  }
  return groups.join(":");
}

function parseIpv4(address: string): IpAddress | null {
  let value = 0n;
  for (const part of address.split(".")) {
    const octet = Number(part);
    if (octet > 255) return null;
    value = (value << 8n) | BigInt(octet);
  }
  return { family: 4, value };
}

function parseIpv6(address: string): bigint | null {
  const halves = address.split("::");
  if (halves.length > 2) return null;
  const head = groupsOf(halves[0] ?? "");
  const tail = halves.length === 2 ? groupsOf(halves[1] ?? "") : [];
  if (head === null || tail === null) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  return groups.reduce((value, group) => (value << 16n) | BigInt(group), 0n);
}

/** Hex groups of one side of `::`; a trailing dotted IPv4 counts as two groups. */
function groupsOf(side: string): number[] | null {
  if (side === "") return [];
  const parts = side.split(":");
  const groups: number[] = [];
  for (const [index, part] of parts.entries()) {
    if (index === parts.length - 1 && part.includes(".")) {
      const v4 = /^\d{1,3}(\.\d{1,3}){3}$/.test(part) ? parseIpv4(part) : null;
      if (!v4) return null;
      groups.push(Number(v4.value >> 16n), Number(v4.value & 0xffffn));
    } else if (/^[0-9a-f]{1,4}$/i.test(part)) {
      groups.push(Number.parseInt(part, 16));
    } else {
      return null;
    }
  }
  return groups;
}
