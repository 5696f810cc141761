import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { webhookReceived } from "../realtime/realtime.payload.model.ts";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs, captureAt, createDebugEndpoint } from "../test-utils/endpoints.ts";
import { storedRow } from "../test-utils/stored-rows.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { onPostgres } from "../test-utils/test-store.ts";
import { createRequestsRepo } from "./requests.repo.ts";

const SECRET = "It's a Secret to Everybody";
const BODY = '{"action":"opened"}';
const githubSignature = (secret: string, body: string) =>
  `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

let server: TestServer;
let owner: TestAccount;
let member: TestAccount;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, { plan: "enterprise" });
  member = await owner.addMember("member");
});
afterAll(() => server.stop());

const send = (slug: string, headers: Record<string, string> = {}, body = BODY) =>
  captureAt(server, `/debug/${slug}`, { method: "POST", headers, body });

describe("a debug endpoint with a verification setting", () => {
  test("the secret is sealed at rest and never returned; reads show secret_set", async () => {
    const endpoint = await createDebugEndpoint(server, owner, {
      verification: { type: "github", secret: SECRET },
    });
    expect(endpoint.verification).toEqual({ type: "github", secret_set: true });
    const read = await callAs(server, member, "GET", `/api/v1/endpoints/${endpoint.id}`);
    expect(read.body.data.verification).toEqual({ type: "github", secret_set: true });
    expect(JSON.stringify(read.body)).not.toContain(SECRET);
    const row = (await storedRow(server, "debug_endpoints", endpoint.id)) as {
      verification: string;
    } | null;
    expect(row?.verification).toContain('"type":"github"');
    expect(row?.verification).not.toContain("Secret to Everybody");
  });

  test("every capture records its verdict; none is refused; lists filter by it", async () => {
    const endpoint = await createDebugEndpoint(server, owner, {
      verification: { type: "github", secret: SECRET },
    });
    const valid = await send(endpoint.slug, {
      "x-hub-signature-256": githubSignature(SECRET, BODY),
    });
    const wrong = await send(endpoint.slug, {
      "x-hub-signature-256": githubSignature("guess", BODY),
    });
    const missing = await send(endpoint.slug);
    const verdicts = async (query = "") => {
      const path = `/api/v1/debug-endpoints/${endpoint.id}/requests${query}`;
      const list = await callAs(server, member, "GET", path);
      expect(list.status).toBe(200);
      return Object.fromEntries(
        (list.body.debug_requests as { id: string; verification: unknown }[]).map((r) => [
          r.id,
          r.verification,
        ]),
      );
    };
    expect(await verdicts()).toEqual({
      [valid]: { status: "valid", reason: null },
      [wrong]: { status: "invalid", reason: "wrong secret or body changed" },
      [missing]: { status: "missing", reason: "no signature header" },
    });
    expect(Object.keys(await verdicts("?verification=invalid"))).toEqual([wrong]);
    expect(Object.keys(await verdicts("?verification=valid,missing")).sort()).toEqual(
      [valid, missing].sort(),
    );
    const one = await callAs(
      server,
      member,
      "GET",
      `/api/v1/endpoints/${endpoint.id}/requests/${valid}`,
    );
    expect(one.body.data.verification).toEqual({ status: "valid", reason: null });
    const bad = await callAs(
      server,
      member,
      "GET",
      `/api/v1/endpoints/${endpoint.id}/requests?verification=maybe`,
    );
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(["verification"]);
  });

  // Reads the stored rows through the SQLite repo.
  test.skipIf(onPostgres)(
    "the live payload carries the verdict of a verifying endpoint only",
    async () => {
      const endpoint = await createDebugEndpoint(server, owner, {
        verification: { type: "github", secret: SECRET },
      });
      const plain = await createDebugEndpoint(server, owner);
      const signed = await send(endpoint.slug, {
        "x-hub-signature-256": githubSignature(SECRET, BODY),
      });
      const unsigned = await send(plain.slug);
      const requests = createRequestsRepo(server.deps.db);
      const pushed = webhookReceived(requests.find(endpoint.id, signed) as never);
      expect(pushed.verification).toEqual({ status: "valid", reason: null });
      expect(
        webhookReceived(requests.find(plain.id, unsigned) as never).verification,
      ).toBeUndefined();
    },
  );

  test("a {{NAME}} secret is resolved from the organization's secrets at check time", async () => {
    const created = await callAs(server, owner, "POST", "/api/v1/secrets", {
      name: "GH_HOOK_SECRET",
      value: "first",
    });
    expect(created.status).toBe(201);
    const endpoint = await createDebugEndpoint(server, owner, {
      verification: { type: "github", secret: "{{GH_HOOK_SECRET}}" },
    });
    const first = await send(endpoint.slug, {
      "x-hub-signature-256": githubSignature("first", BODY),
    });
    const one = await callAs(
      server,
      owner,
      "GET",
      `/api/v1/endpoints/${endpoint.id}/requests/${first}`,
    );
    expect(one.body.data.verification.status).toBe("valid");
    const unknown = await createDebugEndpoint(server, owner, {
      verification: { type: "github", secret: "{{NOT_THERE}}" },
    });
    const id = await send(unknown.slug, { "x-hub-signature-256": githubSignature("x", BODY) });
    const read = await callAs(
      server,
      owner,
      "GET",
      `/api/v1/endpoints/${unknown.id}/requests/${id}`,
    );
    expect(read.body.data.verification).toEqual({
      status: "invalid",
      reason: "secret {{NOT_THERE}} is not set",
    });
  });

  test("both families update it; null removes it; bad settings name the field", async () => {
    const endpoint = await createDebugEndpoint(server, owner);
    const path = `/api/v1/endpoints/${endpoint.id}`;
    const stripe = { type: "stripe", secret: "whsec_x", tolerance_seconds: 60 };
    const put = await callAs(server, owner, "PUT", path, {
      debug_endpoint: { verification: stripe },
    });
    expect(put.status).toBe(200);
    expect(put.body.data.verification).toEqual({
      type: "stripe",
      secret_set: true,
      tolerance_seconds: 60,
    });
    // Reads never show the secret, so an update without one keeps it (same type).
    const widened = await callAs(server, owner, "PUT", path, {
      debug_endpoint: { verification: { type: "stripe", tolerance_seconds: 600 } },
    });
    expect(widened.body.data.verification).toEqual({
      type: "stripe",
      secret_set: true,
      tolerance_seconds: 600,
    });
    const t = Math.floor(Date.now() / 1000);
    const sig = createHmac("sha256", "whsec_x").update(`${t}.${BODY}`).digest("hex");
    const kept = await send(endpoint.slug, { "stripe-signature": `t=${t},v1=${sig}` });
    const keptRead = await callAs(server, owner, "GET", `${path}/requests/${kept}`);
    expect(keptRead.body.data.verification).toEqual({ status: "valid", reason: null });
    const retyped = await callAs(server, owner, "PUT", path, {
      debug_endpoint: { verification: { type: "slack" } },
    });
    expect(retyped.status).toBe(422);
    expect(Object.keys(retyped.body.errors)).toEqual(["verification.secret"]);
    const unsigned = await send(endpoint.slug);
    const one = await callAs(server, owner, "GET", `${path}/requests/${unsigned}`);
    expect(one.body.data.verification).toEqual({
      status: "missing",
      reason: "no signature header",
    });
    const debugPath = `/api/v1/debug-endpoints/${endpoint.id}`;
    const cleared = await callAs(server, owner, "PATCH", debugPath, {
      debug_endpoint: { verification: null },
    });
    expect(cleared.body.verification).toBeNull();
    const after = await send(endpoint.slug);
    const plain = await callAs(server, owner, "GET", `${path}/requests/${after}`);
    expect(plain.body.data.verification).toEqual({ status: "not_configured", reason: null });
    for (const [verification, field] of [
      [{ type: "gitlab", secret: "s" }, "verification.type"],
      [{ type: "hmac", secret: "s" }, "verification.header"],
      [{ type: "github" }, "verification.secret"],
    ] as const) {
      const answer = await callAs(server, owner, "PATCH", debugPath, {
        debug_endpoint: { verification },
      });
      expect(answer.status).toBe(422);
      expect(Object.keys(answer.body.errors)).toEqual([field]);
    }
    const member422 = await callAs(server, member, "PATCH", debugPath, {
      debug_endpoint: { verification: null },
    });
    expect(member422.status).toBe(403);
  });
});
