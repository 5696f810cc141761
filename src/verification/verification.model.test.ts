import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import type { FieldErrors } from "../shared/errors.ts";
import {
  REASONS,
  type VerificationResult,
  type VerificationRule,
  verifySignature,
} from "./verification.model.ts";
import { parseVerification } from "./verification.settings.ts";

const NOW_MS = Date.UTC(2026, 0, 31, 12, 0, 0);
const NOW = Math.floor(NOW_MS / 1000);
const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text);
const mac = (algorithm: string, key: string | Buffer, text: string, encoding: "hex" | "base64") =>
  createHmac(algorithm, key).update(text).digest(encoding);

/** A rule as the settings parser builds it from `raw` (so defaults are the real ones). */
function rule(raw: Record<string, unknown>): VerificationRule {
  const errors: FieldErrors = {};
  const parsed = parseVerification({ secret: "s", ...raw }, errors);
  if (!parsed) throw new Error(JSON.stringify(errors));
  return parsed;
}

const check = (
  raw: Record<string, unknown>,
  secret: string,
  headers: Record<string, string>,
  body: string,
): VerificationResult => verifySignature(rule(raw), secret, { headers, body: bytes(body) }, NOW_MS);

const valid = { status: "valid", reason: null };
const mismatch = { status: "invalid", reason: REASONS.mismatch };
const stale = { status: "invalid", reason: REASONS.stale };
const noHeader = { status: "missing", reason: REASONS.noHeader };

describe("GitHub: x-hub-signature-256 = sha256=<hex HMAC of the body>", () => {
  // GitHub's documented example (docs "Validating webhook deliveries").
  const secret = "It's a Secret to Everybody";
  const signature = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
  test.each([
    ["the documented vector", secret, signature, "Hello, World!", valid],
    ["another secret", "nope", signature, "Hello, World!", mismatch],
    ["a changed body", secret, signature, "Hello, World?", mismatch],
    ["a truncated signature", secret, signature.slice(0, 20), "Hello, World!", mismatch],
    [
      "no sha256= prefix",
      secret,
      signature.slice(7),
      "Hello, World!",
      { status: "invalid", reason: REASONS.malformed },
    ],
  ])("%s", (_name, key, header, body, expected) => {
    expect(check({ type: "github" }, key, { "x-hub-signature-256": header }, body)).toEqual(
      expected as VerificationResult,
    );
  });
  test("no header is missing", () => {
    expect(check({ type: "github" }, secret, {}, "Hello, World!")).toEqual(
      noHeader as VerificationResult,
    );
  });
});

describe("Stripe: stripe-signature t=<ts>,v1=<hex HMAC of t.body>", () => {
  const secret = "whsec_stripe_test";
  const body = '{"id":"evt_1","type":"charge.succeeded"}';
  const sign = (t: number, key = secret) => mac("sha256", key, `${t}.${body}`, "hex");
  test.each([
    ["a fresh signature", `t=${NOW},v1=${sign(NOW)}`, valid],
    [
      "several v1, one right (secret rolling)",
      `t=${NOW},v1=${sign(NOW, "old")},v1=${sign(NOW)},v0=abc`,
      valid,
    ],
    ["the wrong secret", `t=${NOW},v1=${sign(NOW, "other")}`, mismatch],
    ["a timestamp 301 s old", `t=${NOW - 301},v1=${sign(NOW - 301)}`, stale],
    ["a timestamp 299 s old", `t=${NOW - 299},v1=${sign(NOW - 299)}`, valid],
    ["no v1", `t=${NOW}`, { status: "invalid", reason: REASONS.malformed }],
  ])("%s", (_name, header, expected) => {
    expect(check({ type: "stripe" }, secret, { "stripe-signature": header }, body)).toEqual(
      expected as VerificationResult,
    );
  });
  test("tolerance_seconds widens the window", () => {
    const old = NOW - 3000;
    const header = `t=${old},v1=${sign(old)}`;
    expect(
      check(
        { type: "stripe", tolerance_seconds: 3600 },
        secret,
        { "stripe-signature": header },
        body,
      ),
    ).toEqual(valid as VerificationResult);
  });
});

describe("Slack: x-slack-signature v0=<hex HMAC of v0:ts:body>", () => {
  // Slack's documented example (docs "Verifying requests from Slack").
  const secret = "8f742231b10e8888abcd99yyyzzz85a5";
  const body =
    "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
  const ts = "1531420618";
  const signature = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503";
  test("the documented vector, checked at its own time", () => {
    const headers = { "x-slack-signature": signature, "x-slack-request-timestamp": ts };
    expect(
      verifySignature(
        rule({ type: "slack" }),
        secret,
        { headers, body: bytes(body) },
        Number(ts) * 1000,
      ),
    ).toEqual(valid as VerificationResult);
  });
  test("the same vector years later is stale", () => {
    const headers = { "x-slack-signature": signature, "x-slack-request-timestamp": ts };
    expect(check({ type: "slack" }, secret, headers, body)).toEqual(stale as VerificationResult);
  });
  test("no timestamp header", () => {
    expect(check({ type: "slack" }, secret, { "x-slack-signature": signature }, body)).toEqual({
      status: "missing",
      reason: REASONS.noTimestamp,
    });
  });
});

describe("Shopify: x-shopify-hmac-sha256 = base64 HMAC of the body", () => {
  const secret = "shpss_secret";
  const body = '{"id":820982911946154500}';
  test.each([
    ["right", mac("sha256", secret, body, "base64"), valid],
    ["wrong secret", mac("sha256", "x", body, "base64"), mismatch],
    ["hex instead of base64", mac("sha256", secret, body, "hex"), mismatch],
  ])("%s", (_name, header, expected) => {
    expect(check({ type: "shopify" }, secret, { "x-shopify-hmac-sha256": header }, body)).toEqual(
      expected as VerificationResult,
    );
  });
});

describe("Standard Webhooks, signed by the official library", () => {
  const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const body = '{"type":"invoice.paid"}';
  const signed = (at: Date, key = secret) => ({
    "webhook-id": "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W",
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(key).sign("msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", at, body),
  });
  test.each([
    ["fresh", signed(new Date(NOW_MS)), valid],
    [
      "another key",
      signed(new Date(NOW_MS), "whsec_QWxsIHlvdXIgYmFzZSBhcmUgYmVsb25nIHRvIHVz"),
      mismatch,
    ],
    ["ten minutes old", signed(new Date(NOW_MS - 600_000)), stale],
  ])("%s", (_name, headers, expected) => {
    expect(check({ type: "standard_webhooks" }, secret, headers, body)).toEqual(
      expected as VerificationResult,
    );
  });
  test("several signatures: any one valid passes", () => {
    const headers = signed(new Date(NOW_MS));
    headers["webhook-signature"] =
      `v1,${Buffer.alloc(32).toString("base64")} ${headers["webhook-signature"]}`;
    expect(check({ type: "standard_webhooks" }, secret, headers, body)).toEqual(
      valid as VerificationResult,
    );
  });
  test("svix- header names are the same scheme", () => {
    const headers = signed(new Date(NOW_MS));
    const svix = {
      "svix-id": headers["webhook-id"],
      "svix-timestamp": headers["webhook-timestamp"],
      "svix-signature": headers["webhook-signature"],
    };
    expect(check({ type: "standard_webhooks" }, secret, svix, body)).toEqual(
      valid as VerificationResult,
    );
  });
});

describe("generic hmac", () => {
  const secret = "k3y";
  const body = "a=1&b=2";
  test.each([
    ["sha256 hex of the body", { header: "X-Sig" }, mac("sha256", secret, body, "hex"), valid],
    [
      "sha1 with a prefix",
      { header: "x-sig", algorithm: "sha1", prefix: "sha1=" },
      `sha1=${mac("sha1", secret, body, "hex")}`,
      valid,
    ],
    [
      "sha512 base64",
      { header: "x-sig", algorithm: "sha512", encoding: "base64" },
      mac("sha512", secret, body, "base64"),
      valid,
    ],
    [
      "sha512 signature checked as sha256",
      { header: "x-sig" },
      mac("sha512", secret, body, "hex"),
      mismatch,
    ],
  ])("%s", (_name, raw, header, expected) => {
    expect(check({ type: "hmac", ...raw }, secret, { "x-sig": header }, body)).toEqual(
      expected as VerificationResult,
    );
  });
  test("a {timestamp}.{body} template with its tolerance", () => {
    const settings = {
      type: "hmac",
      header: "x-sig",
      signed: "{timestamp}.{body}",
      timestamp_header: "x-ts",
    };
    const at = (t: number) => ({
      "x-sig": mac("sha256", secret, `${t}.${body}`, "hex"),
      "x-ts": String(t),
    });
    expect(check(settings, secret, at(NOW), body)).toEqual(valid as VerificationResult);
    expect(check(settings, secret, at(NOW - 1000), body)).toEqual(stale as VerificationResult);
    expect(check(settings, secret, { "x-sig": "00" }, body).status).toBe("missing");
  });
  test("binary bodies are signed as their bytes", () => {
    const raw = new Uint8Array([0xff, 0x00, 0xfe]);
    const header = createHmac("sha256", secret).update(raw).digest("hex");
    expect(
      verifySignature(
        rule({ type: "hmac", header: "x-sig" }),
        secret,
        { headers: { "x-sig": header }, body: raw },
        NOW_MS,
      ),
    ).toEqual(valid as VerificationResult);
  });
});

describe("settings: 422s name the field", () => {
  const problems = (raw: unknown) => {
    const errors: FieldErrors = {};
    parseVerification(raw, errors);
    return errors;
  };
  test.each([
    [{ type: "gitlab", secret: "s" }, "verification.type"],
    [{ type: "github" }, "verification.secret"],
    [{ type: "hmac", secret: "s" }, "verification.header"],
    [{ type: "hmac", secret: "s", header: "x", algorithm: "md5" }, "verification.algorithm"],
    [{ type: "hmac", secret: "s", header: "x", encoding: "base32" }, "verification.encoding"],
    [{ type: "hmac", secret: "s", header: "x", signed: "{nonce}.{body}" }, "verification.signed"],
    [
      { type: "hmac", secret: "s", header: "x", signed: "{timestamp}.{body}" },
      "verification.timestamp_header",
    ],
    [{ type: "github", secret: "s", header: "x" }, "verification.header"],
    [{ type: "github", secret: "s", tolerance_seconds: 60 }, "verification.tolerance_seconds"],
    [{ type: "stripe", secret: "s", tolerance_seconds: 0 }, "verification.tolerance_seconds"],
    [{ type: "standard_webhooks", secret: "not base64!" }, "verification.secret"],
    ["github", "verification"],
  ])("%j → %s", (raw, field) => {
    expect(Object.keys(problems(raw))).toEqual([field]);
  });
  test("null removes, absent keeps, a template is accepted as written", () => {
    expect(parseVerification(null, {})).toBeNull();
    expect(parseVerification(undefined, {})).toBeUndefined();
    expect(
      parseVerification({ type: "standard_webhooks", secret: "{{SW_SECRET}}" }, {})?.secret,
    ).toBe("{{SW_SECRET}}");
    expect(parseVerification({ type: "slack", secret: "x" }, {})?.toleranceSeconds).toBe(300);
  });
});
