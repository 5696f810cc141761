import { expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { createSealer } from "../shared/sealed.ts";
import { sealVerification, verificationOwner } from "../verification/verification.settings.ts";
import { createSourceVerifier } from "./ingest.verify.ts";
import type { Source } from "./sources.model.ts";

const sealer = createSealer(new Uint8Array(32).fill(9), "ingest-verify-test");
const body = new TextEncoder().encode('{"a":1}');
const signed = (secret: string) => ({
  headers: {
    "x-hub-signature-256": `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`,
  },
  body,
});
const rule = {
  type: "github" as const,
  toleranceSeconds: null,
  header: null,
  algorithm: null,
  encoding: null,
  prefix: null,
  signed: null,
  timestampHeader: null,
};
const sourceOf = (id: string, organizationId: string) =>
  ({
    id,
    organizationId,
    verification: sealVerification(
      { ...rule, secret: "{{HOOK}}" },
      sealer,
      verificationOwner("source", id),
    ),
  }) as Source;
const secretsOf: Record<string, string> = { "org-a": "alpha", "org-b": "beta" };

test("on PostgreSQL a {{NAME}} secret is fetched before the check, each organization its own", async () => {
  const verifier = createSourceVerifier({
    sealer,
    awaitSecrets: true,
    // Answers later than it is asked, so the two checks below overlap.
    resolveSecrets: async (organizationId) => {
      await Bun.sleep(organizationId === "org-a" ? 5 : 1);
      return (name) => (name === "HOOK" ? secretsOf[organizationId] : undefined);
    },
    now: () => 0,
  });
  expect(verifier.verifyAsync).toBeFunction();
  const [a, b, wrong] = await Promise.all([
    verifier.verifyAsync?.(sourceOf("s-a", "org-a"), signed("alpha")),
    verifier.verifyAsync?.(sourceOf("s-b", "org-b"), signed("beta")),
    verifier.verifyAsync?.(sourceOf("s-c", "org-b"), signed("alpha")),
  ]);
  expect([a?.status, b?.status, wrong?.status]).toEqual(["valid", "valid", "invalid"]);
  // The synchronous check has no lookup lent to it outside an awaited one.
  expect(verifier.verify(sourceOf("s-a", "org-a"), signed("alpha"))).toEqual({
    status: "invalid",
    reason: "secret {{HOOK}} is not set",
  });
});

test("on SQLite the check reads the secrets without waiting and has no async twin", () => {
  const verifier = createSourceVerifier({
    sealer,
    awaitSecrets: false,
    resolveSecretsNow: (organizationId) => (name) =>
      name === "HOOK" ? secretsOf[organizationId] : undefined,
    resolveSecrets: async () => () => "never read",
    now: () => 0,
  });
  expect(verifier.verifyAsync).toBeUndefined();
  expect(verifier.verify(sourceOf("s-a", "org-a"), signed("alpha")).status).toBe("valid");
  expect(verifier.verify(sourceOf("s-b", "org-b"), signed("alpha")).status).toBe("invalid");
});
