import { describe, expect, test } from "bun:test";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { generateSigningSecret, isSigningSecret, signDelivery } from "./delivery.signing.ts";

const now = () => Math.floor(Date.now() / 1000);

describe("Standard Webhooks signing, checked with the reference verifier", () => {
  test("a signed delivery verifies", () => {
    const secret = generateSigningSecret();
    const body = JSON.stringify({ type: "push", n: 1 });
    const headers = signDelivery({ id: "msg_1", timestampSeconds: now(), body, secrets: [secret] });
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual({ type: "push", n: 1 });
  });

  test("the body is signed byte for byte (binary and non-JSON bodies too)", () => {
    const secret = generateSigningSecret();
    const body = new TextEncoder().encode("caf\u00e9 \u{1f600} raw text");
    const headers = signDelivery({ id: "msg_2", timestampSeconds: now(), body, secrets: [secret] });
    const verifier = new Webhook(secret);
    // The verifier parses JSON once the signature holds: a SyntaxError means it verified.
    const failure = (payload: string) => {
      try {
        verifier.verify(Buffer.from(payload), { ...headers });
        return "verified";
      } catch (error) {
        return error instanceof WebhookVerificationError ? "bad signature" : "verified";
      }
    };
    expect(failure(new TextDecoder().decode(body))).toBe("verified");
    expect(failure("cafe raw text")).toBe("bad signature");
  });

  test("a changed id or timestamp fails verification", () => {
    const secret = generateSigningSecret();
    const headers = signDelivery({
      id: "msg_3",
      timestampSeconds: now(),
      body: "{}",
      secrets: [secret],
    });
    const verifier = new Webhook(secret);
    expect(() => verifier.verify("{}", { ...headers, "webhook-id": "msg_4" })).toThrow();
    const later = String(Number(headers["webhook-timestamp"]) + 1);
    expect(() => verifier.verify("{}", { ...headers, "webhook-timestamp": later })).toThrow();
  });

  test("after a rotation both secrets verify, the new one first", () => {
    const [fresh, old] = [generateSigningSecret(), generateSigningSecret()];
    const headers = signDelivery({
      id: "msg_5",
      timestampSeconds: now(),
      body: "{}",
      secrets: [fresh, old],
    });
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(() => new Webhook(fresh).verify("{}", { ...headers })).not.toThrow();
    expect(() => new Webhook(old).verify("{}", { ...headers })).not.toThrow();
    expect(() => new Webhook(generateSigningSecret()).verify("{}", { ...headers })).toThrow();
  });
});

describe("signing secrets", () => {
  test("generated secrets have the whsec_ shape and differ", () => {
    const a = generateSigningSecret();
    expect(isSigningSecret(a)).toBe(true);
    expect(a).not.toBe(generateSigningSecret());
    expect(Buffer.from(a.slice(6), "base64")).toHaveLength(32);
  });
  test.each([
    ["whsec_", false],
    ["whsec_!!!", false],
    [`whsec_${Buffer.alloc(16).toString("base64")}`, false],
    [`whsec_${Buffer.alloc(24).toString("base64")}`, true],
    [`whsec_${Buffer.alloc(64).toString("base64")}`, true],
    [`whsec_${Buffer.alloc(65).toString("base64")}`, false],
    [`sk_${Buffer.alloc(32).toString("base64")}`, false],
  ])("%s → %p", (secret, valid) => {
    expect(isSigningSecret(secret)).toBe(valid);
  });
});
