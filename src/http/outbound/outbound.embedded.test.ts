import { describe, expect, test } from "bun:test";
import { formatIp, parseIp } from "./outbound.address.ts";
import { carriedIpv4 } from "./outbound.embedded.ts";

/** What an address carries, as `form address` pairs. */
function carriedBy(text: string): string[] {
  const ip = parseIp(text);
  if (!ip) throw new Error(`${text} did not parse`);
  return carriedIpv4(ip).map((inner) => `${inner.form} ${formatIp(inner.ip)}`);
}

describe("IPv4 addresses carried by IPv6 ones", () => {
  test.each([
    // NAT64 well-known prefix 64:ff9b::/96 (RFC 6052): IPv4 in the last 32 bits.
    ["64:ff9b::a9fe:a9fe", ["NAT64 169.254.169.254"]],
    ["64:ff9b::169.254.169.254", ["NAT64 169.254.169.254"]],
    ["64:FF9B::A9FE:A9FE", ["NAT64 169.254.169.254"]],
    ["0064:ff9b:0000:0000:0000:0000:a9fe:a9fe", ["NAT64 169.254.169.254"]],
    ["64:ff9b:0:0:0:0:10.0.0.1", ["NAT64 10.0.0.1"]],
    ["[64:ff9b::a9fe:a9fe]", ["NAT64 169.254.169.254"]],
    ["64:ff9b::a9fe:a9fe%eth0", ["NAT64 169.254.169.254"]],
    ["64:ff9b::", ["NAT64 0.0.0.0"]],
    ["64:ff9b::ffff:ffff", ["NAT64 255.255.255.255"]],
    ["64:ff9b::1:a9fe:a9fe", []],
    ["64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff", []],
    ["64:ff9b:0:0:0:1::", []],
    // NAT64 local-use prefix 64:ff9b:1::/48 (RFC 8215), as the /96 translators deploy.
    ["64:ff9b:1::a9fe:a9fe", ["NAT64 169.254.169.254"]],
    ["64:ff9b:1:abcd:1:2:10.1.2.3", ["NAT64 10.1.2.3"]],
    ["64:ff9b:1:ffff:ffff:ffff:ffff:ffff", ["NAT64 255.255.255.255"]],
    ["64:ff9b:2::a9fe:a9fe", []],
    ["64:ff9b:0:ffff:ffff:ffff:a9fe:a9fe", []],
    // 6to4 2002::/16 (RFC 3056): IPv4 in bits 16..47.
    ["2002:a9fe:a9fe::", ["6to4 169.254.169.254"]],
    ["2002:a9fe:a9fe:1:2:3:4:5", ["6to4 169.254.169.254"]],
    ["2002:A00:1::1", ["6to4 10.0.0.1"]],
    ["2002::", ["6to4 0.0.0.0"]],
    ["2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff", ["6to4 255.255.255.255"]],
    ["2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", []],
    ["2003::a9fe:a9fe", []],
    // IPv4-compatible ::/96 (deprecated, RFC 4291), but not :: and ::1.
    ["::a9fe:a9fe", ["IPv4-compatible 169.254.169.254"]],
    ["::169.254.169.254", ["IPv4-compatible 169.254.169.254"]],
    ["0:0:0:0:0:0:10.0.0.1", ["IPv4-compatible 10.0.0.1"]],
    ["::2", ["IPv4-compatible 0.0.0.2"]],
    ["::ffff:ffff", ["IPv4-compatible 255.255.255.255"]],
    ["::", []],
    ["::1", []],
    ["::1:0:0", []],
    ["::fffe:a9fe:a9fe", []],
    // Teredo 2001::/32 (RFC 4380): server in bits 32..63, client inverted in the last 32.
    ["2001:0:a9fe:a9fe::ffff:ffff", ["Teredo server 169.254.169.254", "Teredo client 0.0.0.0"]],
    [
      "2001:0:4136:e378:8000:63bf:3fff:fdd2",
      ["Teredo server 65.54.227.120", "Teredo client 192.0.2.45"],
    ],
    ["2001::", ["Teredo server 0.0.0.0", "Teredo client 255.255.255.255"]],
    [
      "2001:0:ffff:ffff:ffff:ffff:5601:5601",
      ["Teredo server 255.255.255.255", "Teredo client 169.254.169.254"],
    ],
    ["2001:1::a9fe:a9fe", []],
    ["2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff", []],
    // Addresses that carry nothing.
    ["2001:db8::a9fe:a9fe", []],
    ["2606:4700::1111", []],
    ["fe80::a9fe:a9fe", []],
    ["169.254.169.254", []],
    ["::ffff:169.254.169.254", []],
  ])("%s carries %p", (address, expected) => {
    expect(carriedBy(address)).toEqual(expected);
  });

  test("an IPv4-mapped address is the IPv4 address itself, not a carrier", () => {
    expect(parseIp("::ffff:a9fe:a9fe")).toEqual({ family: 4, value: 0xa9fe_a9fen });
  });
});
