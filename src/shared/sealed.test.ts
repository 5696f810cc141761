import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { createSealer, SealedValueError } from "./sealed.ts";
import { secretReferences, substituteSecrets } from "./secret-template.ts";

const serverSecret = randomBytes(32);

describe("sealed values (AES-256-GCM, key per purpose)", () => {
  const sealer = createSealer(serverSecret, "org-secrets");

  test("a sealed value opens with the same key and associated data", () => {
    const sealed = sealer.seal("xoxb-123-secret", "org_1/SLACK_TOKEN");
    expect(sealed.startsWith("v1.")).toBe(true);
    expect(sealed).not.toContain("xoxb");
    expect(sealer.open(sealed, "org_1/SLACK_TOKEN")).toBe("xoxb-123-secret");
  });

  test("sealing twice gives different ciphertexts (fresh IV)", () => {
    expect(sealer.seal("same", "a")).not.toBe(sealer.seal("same", "a"));
  });

  test("unicode and empty values round-trip", () => {
    for (const value of ["", "caf\u00e9 \u{1f600}", "x".repeat(10_000)]) {
      expect(sealer.open(sealer.seal(value, "ad"), "ad")).toBe(value);
    }
  });

  // Each way a stored value can be wrong must be refused, never decrypted to garbage.
  const sealed = sealer.seal("value", "org_1/A");
  // The second-to-last character always carries ciphertext bits (the last may be padding bits).
  const target = sealed.at(-2);
  const flipped = `${sealed.slice(0, -2)}${target === "A" ? "B" : "A"}${sealed.slice(-1)}`;
  test.each([
    ["another row's associated data", sealed, "org_2/A", sealer],
    ["another purpose's key", sealed, "org_1/A", createSealer(serverSecret, "signing")],
    ["another server secret", sealed, "org_1/A", createSealer(randomBytes(32), "org-secrets")],
    ["a changed byte", flipped, "org_1/A", sealer],
    ["a truncated value", sealed.slice(0, 10), "org_1/A", sealer],
    ["an unknown version", sealed.replace(/^v1/, "v9"), "org_1/A", sealer],
    ["plain text", "value", "org_1/A", sealer],
  ])("refuses %s", (_what, value, associatedData, opener) => {
    expect(() => opener.open(value, associatedData)).toThrow(SealedValueError);
  });
});

describe("{{SECRET}} templates", () => {
  const secrets: Record<string, string> = { TOKEN: "t0k", CHAT_ID: "42" };
  const lookup = (name: string) => secrets[name];

  test.each([
    ["https://hooks.example/{{TOKEN}}", "https://hooks.example/t0k"],
    ["Bearer {{ TOKEN }}", "Bearer t0k"],
    ["{{TOKEN}}:{{CHAT_ID}}:{{TOKEN}}", "t0k:42:t0k"],
    ["no reference", "no reference"],
    ["{{lower}} is not a reference", "{{lower}} is not a reference"],
    ["{TOKEN}", "{TOKEN}"],
  ])("%s", (template, expected) => {
    expect(substituteSecrets(template, lookup)).toEqual({ ok: true, text: expected });
  });

  test("an unknown name fails the whole substitution and names the secret", () => {
    expect(substituteSecrets("{{TOKEN}}/{{MISSING_ONE}}", lookup)).toEqual({
      ok: false,
      missing: "MISSING_ONE",
    });
  });

  test("a value that looks like a reference is not substituted again", () => {
    const tricky = (name: string) => (name === "A" ? "{{B}}" : name === "B" ? "b" : undefined);
    expect(substituteSecrets("{{A}}", tricky)).toEqual({ ok: true, text: "{{B}}" });
  });

  test("references are listed once each, in order", () => {
    expect(secretReferences("{{B}} {{A}} {{B}}")).toEqual(["B", "A"]);
  });
});
