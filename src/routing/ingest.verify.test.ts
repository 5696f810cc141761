import { expect, test } from "bun:test";
import { createSealer } from "../shared/sealed.ts";
import { GITHUB_RULE, githubSigned } from "../test-utils/github-signed.ts";
import { sealVerification, verificationOwner } from "../verification/verification.settings.ts";
import { createSourceVerifier } from "./ingest.verify.ts";
import type { Source } from "./sources.model.ts";

const sealer = createSealer(new Uint8Array(32).fill(9), "ingest-verify-test");
const sourceOf = (id: string, organizationId: string) =>
  ({
    id,
    organizationId,
    verification: sealVerification(
      { ...GITHUB_RULE, secret: "{{HOOK}}" },
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
    verifier.verifyAsync?.(sourceOf("s-a", "org-a"), githubSigned("alpha")),
    verifier.verifyAsync?.(sourceOf("s-b", "org-b"), githubSigned("beta")),
    verifier.verifyAsync?.(sourceOf("s-c", "org-b"), githubSigned("alpha")),
  ]);
  expect([a?.status, b?.status, wrong?.status]).toEqual(["valid", "valid", "invalid"]);
  // The synchronous check has no lookup lent to it outside an awaited one.
  expect(verifier.verify(sourceOf("s-a", "org-a"), githubSigned("alpha"))).toEqual({
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
  expect(verifier.verify(sourceOf("s-a", "org-a"), githubSigned("alpha")).status).toBe("valid");
  expect(verifier.verify(sourceOf("s-b", "org-b"), githubSigned("alpha")).status).toBe("invalid");
});
