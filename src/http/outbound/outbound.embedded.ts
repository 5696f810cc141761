import type { IpAddress } from "./outbound.address.ts";

/**
 * IPv6 addresses that carry an IPv4 address and reach it (or the network behind it) through a
 * translator or tunnel on the path. The policy judges such an address by what it carries too:
 * on an IPv6-only host with DNS64/NAT64, `64:ff9b::a9fe:a9fe` IS 169.254.169.254.
 * IPv4-mapped addresses (`::ffff:a.b.c.d`) are not here: the parser already reads them as IPv4,
 * because a dual-stack socket connects to them over IPv4 with no translator involved.
 */

/** How the IPv4 address is carried; named in a refusal so the operator sees why. */
export type CarrierForm = "NAT64" | "6to4" | "IPv4-compatible" | "Teredo server" | "Teredo client";

export interface CarriedIpv4 {
  form: CarrierForm;
  ip: IpAddress;
}

const V4_MASK = 0xffff_ffffn;
/** RFC 6052 well-known prefix 64:ff9b::/96 (it is only ever used as a /96): first 96 bits. */
const NAT64_WELL_KNOWN = 0x0064_ff9b_0000_0000_0000_0000n;
/** RFC 8215 local-use prefix 64:ff9b:1::/48: first 48 bits. */
const NAT64_LOCAL_USE = 0x0064_ff9b_0001n;
/** RFC 3056 6to4 2002::/16: first 16 bits. */
const SIX_TO_FOUR = 0x2002n;
/** RFC 4380 Teredo 2001::/32: first 32 bits. */
const TEREDO = 0x2001_0000n;

const NONE: readonly CarriedIpv4[] = Object.freeze([]);

/**
 * The IPv4 addresses an IPv6 address carries (none for IPv4 and plain IPv6). A handful of
 * shifts and compares: it runs on every new outbound connection.
 */
export function carriedIpv4(ip: IpAddress): readonly CarriedIpv4[] {
  if (ip.family === 4) return NONE;
  const value = ip.value;
  const first96 = value >> 32n;
  // `::` and `::1` are their own addresses ("this host", loopback), not 0.0.0.0 and 0.0.0.1.
  if (first96 === 0n) return value > 1n ? [carried("IPv4-compatible", value)] : NONE;
  if (first96 === NAT64_WELL_KNOWN) return [carried("NAT64", value)];
  const first48 = value >> 80n;
  // The local-use prefix may be cut to any RFC 6052 length; the /96 layout (IPv4 last) is the
  // one translators deploy, and reading the others would misread /96 addresses as 0.0.0.0/8.
  if (first48 === NAT64_LOCAL_USE) return [carried("NAT64", value)];
  if (first48 >> 32n === SIX_TO_FOUR) return [carried("6to4", first48)];
  if (first96 >> 64n === TEREDO) {
    // The client's public address is stored inverted (XOR 0xffffffff) so NATs do not rewrite it.
    return [carried("Teredo server", value >> 64n), carried("Teredo client", value ^ V4_MASK)];
  }
  return NONE;
}

function carried(form: CarrierForm, bits: bigint): CarriedIpv4 {
  return { form, ip: { family: 4, value: bits & V4_MASK } };
}
