import { expect, test } from "bun:test";
import { createSealer } from "../shared/sealed.ts";
import { GITHUB_RULE, githubSigned } from "../test-utils/github-signed.ts";
import { createVerificationChecker } from "./verification.checker.ts";
import { sealVerification, verificationOwner } from "./verification.settings.ts";

const sealer = createSealer(new Uint8Array(32).fill(7), "verification-test");
const ownerA = { organizationId: "org-a", owner: verificationOwner("endpoint", "a") };

test("no setting is not_configured", () => {
  const check = createVerificationChecker({ sealer, now: () => 0 });
  expect(check(null, ownerA, githubSigned("x"))).toEqual({
    status: "not_configured",
    reason: null,
  });
});

test("a sealed secret opens only for the row it was sealed to", () => {
  const check = createVerificationChecker({ sealer, now: () => 0 });
  const stored = sealVerification({ ...GITHUB_RULE, secret: "s3cret" }, sealer, ownerA.owner);
  expect(stored.sealedSecret).not.toContain("s3cret");
  expect(check(stored, ownerA, githubSigned("s3cret")).status).toBe("valid");
  const moved = { organizationId: "org-a", owner: verificationOwner("endpoint", "b") };
  expect(check(stored, moved, githubSigned("s3cret"))).toEqual({
    status: "invalid",
    reason: "secret cannot be read: set it again",
  });
});

test("a {{NAME}} secret is looked up at every check: a rotated secret applies at once", () => {
  let current = "first";
  const check = createVerificationChecker({
    sealer,
    now: () => 0,
    resolveSecrets: (organizationId) => (name) =>
      organizationId === "org-a" && name === "HOOK" ? current : undefined,
  });
  const stored = sealVerification({ ...GITHUB_RULE, secret: "{{HOOK}}" }, sealer, ownerA.owner);
  expect(check(stored, ownerA, githubSigned("first")).status).toBe("valid");
  current = "second";
  expect(check(stored, ownerA, githubSigned("first")).status).toBe("invalid");
  expect(check(stored, ownerA, githubSigned("second")).status).toBe("valid");
  const otherOrg = { organizationId: "org-b", owner: ownerA.owner };
  expect(check(stored, otherOrg, githubSigned("second"))).toEqual({
    status: "invalid",
    reason: "secret {{HOOK}} is not set",
  });
});
