import { describe, expect, test } from "bun:test";
import { inRange, parseCidr, parseIp } from "./outbound.address.ts";
import {
  allowsLocalNetworks,
  createOutboundPolicy,
  LOCAL_NETWORK_RANGES,
} from "./outbound.policy.ts";

const defaults = createOutboundPolicy({ deny: [], allow: [] });
const shared = createOutboundPolicy({ deny: LOCAL_NETWORK_RANGES, allow: [] });

describe("addresses and ranges", () => {
  test.each([
    ["127.0.0.1", "127.0.0.0/8", true],
    ["128.0.0.1", "127.0.0.0/8", false],
    ["::ffff:127.0.0.1", "127.0.0.0/8", true],
    ["::ffff:7f00:1", "127.0.0.0/8", true],
    ["[::1]", "::1/128", true],
    ["fe80::1%eth0", "fe80::/10", true],
    ["febf:ffff::1", "fe80::/10", true],
    ["fec0::1", "fe80::/10", false],
    ["2001:db8::8a2e:370:7334", "2001:db8::/32", true],
    ["10.1.2.3", "::ffff:10.0.0.0/104", true],
    ["1.2.3.4", "0.0.0.0/0", true],
    ["::2", "::/128", false],
  ])("%s in %s → %p", (address, cidr, expected) => {
    const ip = parseIp(address);
    const range = parseCidr(cidr);
    if (!ip || !range) throw new Error("unparsed");
    expect(inRange(range, ip)).toBe(expected);
  });

  test.each(["", "localhost", "1.2.3", "256.1.1.1", "1:2:3:4:5:6:7:8:9", "::1::", "g::1"])(
    "%p is not an address",
    (text) => {
      expect(parseIp(text)).toBeNull();
    },
  );

  test.each(["10.0.0.0/33", "::/129", "10.0.0.0/8/1", "x/8", "10.0.0.0/-1"])(
    "%p is not a range",
    (text) => {
      expect(parseCidr(text)).toBeNull();
    },
  );
});

describe("the default policy (decisions.md §14)", () => {
  test.each([
    ["169.254.169.254", false],
    ["169.254.0.1", false],
    ["::ffff:169.254.169.254", false],
    ["fe80::1", false],
    ["0.0.0.0", false],
    ["0.1.2.3", false],
    ["::", false],
    ["224.0.0.251", false],
    ["239.255.255.250", false],
    ["255.255.255.255", false],
    ["ff02::1", false],
    ["127.0.0.1", true],
    ["::1", true],
    ["10.0.0.5", true],
    ["172.16.3.4", true],
    ["192.168.1.10", true],
    ["fd12::1", true],
    ["93.184.216.34", true],
    ["2606:4700::1111", true],
    ["not-an-ip", false],
  ])("%s allowed: %p", (address, allowed) => {
    expect(defaults.checkAddress(address).allowed).toBe(allowed);
  });

  test("a refusal names the address and the rule", () => {
    expect(defaults.checkAddress("::ffff:a9fe:a9fe")).toEqual({
      allowed: false,
      reason: "169.254.169.254 is denied by the outbound address policy (169.254.0.0/16)",
    });
  });
});

describe("configured rules", () => {
  test("deny adds to the built-in list; allow wins over both", () => {
    const policy = createOutboundPolicy({
      deny: ["10.0.0.0/8", "2001:db8::/32"],
      allow: ["10.9.0.0/16", "169.254.169.254"],
    });
    expect(policy.checkAddress("10.1.1.1").allowed).toBe(false);
    expect(policy.checkAddress("2001:db8::1").allowed).toBe(false);
    expect(policy.checkAddress("10.9.1.1").allowed).toBe(true);
    expect(policy.checkAddress("169.254.169.254").allowed).toBe(true);
    expect(policy.checkAddress("169.254.169.253").allowed).toBe(false);
  });

  test("allowsLocalNetworks tells whether loopback or private ranges get through", () => {
    expect(allowsLocalNetworks({ deny: [], allow: [] })).toBe(true);
    expect(allowsLocalNetworks({ deny: LOCAL_NETWORK_RANGES, allow: [] })).toBe(false);
    expect(allowsLocalNetworks({ deny: ["0.0.0.0/0", "::/0"], allow: [] })).toBe(false);
    const withoutCgnat = LOCAL_NETWORK_RANGES.filter((range) => range !== "100.64.0.0/10");
    expect(allowsLocalNetworks({ deny: withoutCgnat, allow: [] })).toBe(true);
    expect(allowsLocalNetworks({ deny: LOCAL_NETWORK_RANGES, allow: ["192.168.1.0/24"] })).toBe(
      true,
    );
    expect(allowsLocalNetworks({ deny: LOCAL_NETWORK_RANGES, allow: ["8.8.8.8"] })).toBe(false);
  });
});

describe("checking a URL as saved", () => {
  test.each([
    // Every spelling the URL parser (and so the resolver) reads as 169.254.169.254.
    ["http://169.254.169.254/latest", false],
    ["http://2852039166/", false],
    ["http://0xA9FEA9FE/", false],
    ["http://0251.0376.0251.0376/", false],
    ["http://169.254.43518/", false],
    ["http://0xa9.0xfe.0xa9.0xfe/", false],
    ["http://169.254.169.254./", false],
    ["http://[::ffff:169.254.169.254]/", false],
    ["http://[0:0:0:0:0:ffff:a9fe:a9fe]/", false],
    ["http://user:pw@169.254.169.254:80/", false],
    ["http://0/", false],
    ["http://[fe80::a]/", false],
    ["http://example.com/hook", true],
    ["https://127.0.0.1:3000/", true],
    ["http://localhost:3000/", true],
    ["not a url", false],
  ])("%s allowed: %p (default policy)", (url, allowed) => {
    expect(defaults.checkUrl(url).allowed).toBe(allowed);
  });

  test.each([
    ["http://127.0.0.1/", false],
    ["http://2130706433/", false],
    ["http://0x7f.1/", false],
    ["http://017700000001/", false],
    ["http://[::1]/", false],
    ["http://[::ffff:7f00:1]/", false],
    ["http://localhost/", false],
    ["http://LOCALHOST./", false],
    ["http://app.localhost:3000/", false],
    ["http://10.0.0.8/", false],
    ["http://192.168.1.1/", false],
    ["http://[fd00::1]/", false],
    ["https://hooks.example.com/", true],
  ])("%s allowed: %p (local networks denied)", (url, allowed) => {
    expect(shared.checkUrl(url).allowed).toBe(allowed);
  });
});

describe("IPv6 addresses that carry an IPv4 address", () => {
  test.each([
    ["64:ff9b::a9fe:a9fe", false],
    ["64:ff9b::169.254.169.254", false],
    ["64:ff9b:1::a9fe:a9fe", false],
    ["2002:a9fe:a9fe::1", false],
    ["::169.254.169.254", false],
    ["2001:0:a9fe:a9fe::1", false],
    ["2001:0:4136:e378:8000:63bf:5601:5601", false],
    ["64:ff9b::e000:fb", false],
    ["64:ff9b::5db8:d822", true],
    ["2002:5db8:d822::1", true],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", true],
    ["64:ff9b::7f00:1", true],
    ["::1", true],
  ])("%s allowed: %p (default policy)", (address, allowed) => {
    expect(defaults.checkAddress(address).allowed).toBe(allowed);
  });

  test.each([
    "64:ff9b::a00:1",
    "64:ff9b::10.0.0.1",
    "64:ff9b:1:2::a00:1",
    "2002:a00:1::",
    "::10.0.0.1",
    "2001:0:a00:1::1",
    "2001:0:4136:e378::f5ff:fffe",
    "64:ff9b::7f00:1",
    "64:ff9b::c0a8:101",
  ])("%s is denied when its IPv4 address is (local networks denied)", (address) => {
    expect(shared.checkAddress(address).allowed).toBe(false);
  });

  test("a refusal names the address, the form, what it carries and the rule", () => {
    expect(defaults.checkAddress("64:ff9b::a9fe:a9fe")).toEqual({
      allowed: false,
      reason:
        "64:ff9b::a9fe:a9fe (NAT64 form of 169.254.169.254) is denied by the outbound address policy (169.254.0.0/16)",
    });
    const nat64Denied = createOutboundPolicy({ deny: ["64:ff9b::/96"], allow: [] });
    expect(nat64Denied.checkAddress("64:ff9b::5db8:d822")).toEqual({
      allowed: false,
      reason: "64:ff9b::5db8:d822 is denied by the outbound address policy (64:ff9b::/96)",
    });
  });

  test("allowing an IPv4 range allows the hosts in it whatever form carries them", () => {
    const policy = createOutboundPolicy({
      deny: ["10.0.0.0/8", "2002::/16"],
      allow: ["10.9.0.0/16", "169.254.169.254"],
    });
    for (const address of ["64:ff9b::a09:1", "2002:a09:1::", "::10.9.0.1", "64:ff9b::a9fe:a9fe"]) {
      expect([address, policy.checkAddress(address).allowed]).toEqual([address, true]);
    }
    for (const address of [
      "64:ff9b::a08:1",
      "2002:a08:1::",
      "2002:5db8:d822::",
      "64:ff9b::a9fe:a9fd",
    ]) {
      expect([address, policy.checkAddress(address).allowed]).toEqual([address, false]);
    }
  });

  test("a Teredo address is allowed only when both its server and its client are", () => {
    const policy = createOutboundPolicy({ deny: ["10.0.0.0/8"], allow: ["10.1.0.0/16"] });
    // Server 10.1.0.1 (allowed), client 10.2.0.1 (denied), and the other way round.
    expect(policy.checkAddress("2001:0:a01:1::f5fd:fffe").allowed).toBe(false);
    expect(policy.checkAddress("2001:0:a02:1::f5fe:fffe").allowed).toBe(false);
    expect(policy.checkAddress("2001:0:a01:1::f5fe:fffe").allowed).toBe(true);
  });

  test("an allow rule covering the IPv6 address allows it, whatever it carries", () => {
    const policy = createOutboundPolicy({ deny: [], allow: ["64:ff9b::/96"] });
    expect(policy.checkAddress("64:ff9b::a9fe:a9fe").allowed).toBe(true);
    expect(policy.checkAddress("2002:a9fe:a9fe::").allowed).toBe(false);
  });

  test.each([
    ["http://[64:ff9b::169.254.169.254]/latest", false],
    ["http://[64:FF9B::A9FE:A9FE]:8080/", false],
    ["http://[2002:a9fe:a9fe::]/", false],
    ["http://[::169.254.169.254]/", false],
    ["http://[2001:0:a9fe:a9fe::]/", false],
    ["http://[64:ff9b::5db8:d822]/", true],
  ])("%s allowed: %p on save", (url, allowed) => {
    expect(defaults.checkUrl(url).allowed).toBe(allowed);
  });
});
