import { describe, expect, test } from "bun:test";
import { type Classification, classifyOutcome, type SendOutcome } from "./outbound.classify.ts";
import { BlockedAddressError, OutboundTimeoutError } from "./outbound.model.ts";

const error = (fields: Record<string, unknown>, message = "failed") =>
  Object.assign(new Error(message), fields);
const network = (code: string): Classification => ({ type: "network_error", code });

// Each error below is shaped as Bun 1.4 produced it against a real socket or resolver
// (outbound.errors.test.ts sends to the real thing), plus the spellings of fetch and older Bun.
const TABLE: [string, SendOutcome, Classification | null][] = [
  ["200", { status: 200 }, null],
  ["204", { status: 204 }, null],
  ["299", { status: 299 }, null],
  ["301 (redirects are not followed)", { status: 301 }, { type: "http_error", code: "301" }],
  ["304", { status: 304 }, { type: "http_error", code: "304" }],
  ["400", { status: 400 }, { type: "http_error", code: "400" }],
  ["401", { status: 401 }, { type: "authentication_error", code: "401" }],
  ["403", { status: 403 }, { type: "authentication_error", code: "403" }],
  ["404", { status: 404 }, { type: "http_error", code: "404" }],
  ["429", { status: 429 }, { type: "http_error", code: "429" }],
  ["500", { status: 500 }, { type: "http_error", code: "500" }],
  ["100", { status: 100 }, { type: "http_error", code: "100" }],
  ["our deadline", { error: new OutboundTimeoutError("x") }, network("timeout")],
  ["AbortSignal.timeout", { error: error({ name: "TimeoutError", code: 23 }) }, network("timeout")],
  ["ETIMEDOUT", { error: error({ code: "ETIMEDOUT" }) }, network("timeout")],
  ["policy refusal", { error: new BlockedAddressError("x") }, network("blocked_address")],
  [
    "node:http closed port",
    { error: error({ code: "ECONNREFUSED", errno: -111, syscall: "connect" }) },
    network("connection_refused"),
  ],
  [
    "fetch closed port",
    { error: error({ name: "TypeError", code: "ECONNREFUSED" }) },
    network("connection_refused"),
  ],
  [
    "older Bun fetch",
    { error: error({ code: "ConnectionRefused" }) },
    network("connection_refused"),
  ],
  ["no route", { error: error({ code: "EHOSTUNREACH" }) }, network("connection_refused")],
  [
    "unresolvable name",
    { error: error({ name: "DNSException", code: "ENOTFOUND", syscall: "getaddrinfo" }) },
    network("dns_failure"),
  ],
  [
    "resolver busy",
    { error: error({ code: "EAI_AGAIN", syscall: "getaddrinfo" }) },
    network("dns_failure"),
  ],
  [
    "DNS server refused (a socket code from the resolver)",
    { error: error({ code: "ECONNREFUSED", syscall: "queryA" }) },
    network("dns_failure"),
  ],
  [
    "reset by peer",
    { error: error({ code: "ECONNRESET", syscall: "read" }) },
    network("connection_reset"),
  ],
  [
    "closed before the answer",
    { error: error({ code: "ECONNRESET" }, "socket hang up") },
    network("connection_reset"),
  ],
  ["broken pipe", { error: error({ code: "EPIPE" }) }, network("connection_reset")],
  ["self-signed", { error: error({ code: "DEPTH_ZERO_SELF_SIGNED_CERT" }) }, network("tls_error")],
  ["expired", { error: error({ code: "CERT_HAS_EXPIRED" }) }, network("tls_error")],
  [
    "unknown issuer",
    { error: error({ code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE" }) },
    network("tls_error"),
  ],
  ["wrong name", { error: error({ code: "ERR_TLS_CERT_ALTNAME_INVALID" }) }, network("tls_error")],
  [
    "not TLS (node:https)",
    { error: error({ code: "ERR_SSL_WRONG_VERSION_NUMBER" }) },
    network("tls_error"),
  ],
  ["not TLS (fetch)", { error: error({ code: "EPROTO" }) }, network("tls_error")],
  [
    "garbage answer",
    { error: error({ code: "HPE_INVALID_CONSTANT" }) },
    network("invalid_response"),
  ],
  [
    "bad header from the caller",
    { error: error({ code: "ERR_INVALID_CHAR" }) },
    network("invalid_request"),
  ],
  ["aborted by the caller", { error: error({ name: "AbortError" }) }, network("aborted")],
  ["anything else", { error: error({ code: "EWHATEVER" }) }, network("unknown")],
  ["not even an Error", { error: "boom" }, network("unknown")],
];

describe("classifyOutcome (decisions.md §8)", () => {
  test.each(TABLE)("%s", (_, outcome, expected) => {
    expect(classifyOutcome(outcome)).toEqual(expected);
  });
});
