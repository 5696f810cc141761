import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

// Sources enforce their verification setting (decisions.md §15): 401, no event, counted.
const clock = createFakeClock();
let server: TestServer;
let owner: TestAccount;
let member: TestAccount;

beforeAll(async () => {
  server = await startTestServer({ clock });
  owner = await signUp(server, { plan: "team" });
  member = await owner.addMember("member");
});
afterAll(() => server.stop());

const BODY = '{"id":"evt_1","type":"charge.succeeded"}';
const nowSeconds = () => Math.floor(clock.now() / 1000);
const stripeHeader = (secret: string, t = nowSeconds(), body = BODY) =>
  `t=${t},v1=${createHmac("sha256", secret).update(`${t}.${body}`).digest("hex")}`;

async function createSource(fields: Record<string, unknown>) {
  const answer = await callAs(server, owner, "POST", "/api/v1/sources", {
    name: `s${Math.random()}`,
    ...fields,
  });
  expect(answer.status).toBe(201);
  return answer.body.data as { id: string; slug: string; verification: unknown };
}

async function send(path: string, headers: Record<string, string>, body = BODY) {
  const response = await fetch(`${server.url}${path}`, { method: "POST", headers, body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const stats = async (id: string) =>
  (await callAs(server, member, "GET", `/api/v1/sources/${id}/stats`)).body;
const eventCount = async (id: string) =>
  (await callAs(server, owner, "GET", `/api/v1/events?source_id=${id}`)).body.total;

describe("a source with a verification setting", () => {
  test("refuses missing, wrong and stale signatures with 401, before dedup, and counts them", async () => {
    const secret = "whsec_stripe";
    const source = await createSource({
      type: "stripe",
      verification: { type: "stripe", secret },
      deduplication_config: { body_path: "body.id" },
    });
    expect(source.verification).toEqual({
      type: "stripe",
      secret_set: true,
      tolerance_seconds: 300,
    });
    const byId = `/api/v1/sources/${source.id}/ingest`;
    const refusals: Record<string, string>[] = [
      {},
      { "stripe-signature": stripeHeader("guess") },
      { "stripe-signature": stripeHeader(secret, nowSeconds() - 301) },
    ];
    for (const headers of refusals) {
      expect(await send(byId, headers)).toEqual({
        status: 401,
        body: { error: "signature_invalid" },
      });
    }
    // The refused copies used up no dedup key: the signed one is accepted, its copy a duplicate.
    const signed = { "stripe-signature": stripeHeader(secret) };
    const accepted = await send(`/in/${source.slug}`, signed);
    expect(accepted.status).toBe(200);
    expect(accepted.body.message).toBe("accepted");
    expect((await send(byId, signed)).body).toEqual({ message: "duplicate", duplicate: true });
    expect(await eventCount(source.id)).toBe(1);
    expect(await stats(source.id)).toEqual({
      total_requests: 2,
      duplicates_rejected: 1,
      duplicate_rate: 50,
      rejected_unverified: 3,
      period: "all_time",
    });
  });

  test("Standard Webhooks signed by the official library pass; a {{NAME}} secret works", async () => {
    const key = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const created = await callAs(server, owner, "POST", "/api/v1/secrets", {
      name: "SW_KEY",
      value: key,
    });
    expect(created.status).toBe(201);
    const source = await createSource({
      verification: { type: "standard_webhooks", secret: "{{SW_KEY}}" },
    });
    const at = new Date(clock.now());
    const headers = {
      "webhook-id": "msg_1",
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": new Webhook(key).sign("msg_1", at, BODY),
    };
    expect((await send(`/in/${source.slug}/sub`, headers)).status).toBe(200);
    expect(await eventCount(source.id)).toBe(1);
  });

  test("PATCH sets and removes it; reads never show the secret; bad settings name the field", async () => {
    const source = await createSource({});
    expect(source.verification).toBeNull();
    const path = `/api/v1/sources/${source.id}`;
    const shopify = { type: "shopify", secret: "shpss_top_secret" };
    const patched = await callAs(server, owner, "PATCH", path, { verification: shopify });
    expect(patched.status).toBe(200);
    expect(patched.body.data.verification).toEqual({ type: "shopify", secret_set: true });
    const read = await callAs(server, member, "GET", path);
    expect(JSON.stringify(read.body)).not.toContain("shpss_top_secret");
    const unsigned = await send(`/in/${source.slug}`, {});
    expect(unsigned.status).toBe(401);
    const signature = createHmac("sha256", shopify.secret).update(BODY).digest("base64");
    expect((await send(`/in/${source.slug}`, { "x-shopify-hmac-sha256": signature })).status).toBe(
      200,
    );
    const kept = await callAs(server, owner, "PATCH", path, { verification: { type: "shopify" } });
    expect(kept.status).toBe(200);
    expect((await send(`/in/${source.slug}`, { "x-shopify-hmac-sha256": signature })).status).toBe(
      200,
    );
    const removed = await callAs(server, owner, "PATCH", path, { verification: null });
    expect(removed.body.data.verification).toBeNull();
    expect((await send(`/in/${source.slug}`, {})).status).toBe(200);
    for (const [verification, field] of [
      [{ type: "bitbucket", secret: "s" }, "verification.type"],
      [{ type: "hmac", secret: "s", header: "x-sig", algorithm: "md5" }, "verification.algorithm"],
      [{ type: "slack" }, "verification.secret"],
    ] as const) {
      const answer = await callAs(server, owner, "PATCH", path, { verification });
      expect(answer.status).toBe(422);
      expect(Object.keys(answer.body.errors)).toEqual([field]);
    }
    const badCreate = await callAs(server, owner, "POST", "/api/v1/sources", {
      name: "bad",
      verification: { type: "hmac", secret: "s", header: "x", signed: "{timestamp}.{body}" },
    });
    expect(badCreate.status).toBe(422);
    expect(Object.keys(badCreate.body.errors)).toEqual(["verification.timestamp_header"]);
  });
});
