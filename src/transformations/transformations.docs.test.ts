import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

// The examples of docs/routing.md, run exactly as written there.
const DOC = readFileSync(join(import.meta.dir, "../../docs/routing.md"), "utf8");
function example(name: string): string {
  const match = DOC.match(new RegExp(`<!-- example: ${name} -->\\n\`\`\`js\\n([\\s\\S]*?)\`\`\``));
  if (!match?.[1]) throw new Error(`docs/routing.md has no example ${name}`);
  return match[1];
}

let server: TestServer;
let owner: TestAccount;
beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, { plan: "team" });
  await callAs(server, owner, "POST", "/api/v1/secrets", { name: "BILLING_TOKEN", value: "b-123" });
});
afterAll(() => server.stop());

async function run(name: string, request: Record<string, unknown>) {
  const answer = await callAs(server, owner, "POST", "/api/v1/transformations/test", {
    code: example(name),
    request: { method: "POST", path: "/", ...request },
  });
  expect(answer.status).toBe(200);
  expect(answer.body.data.error).toBeNull();
  return answer.body.data.request;
}

test("GitHub push → Slack text", async () => {
  const push = {
    ref: "refs/heads/main",
    pusher: { name: "ada" },
    repository: { full_name: "acme/api" },
    commits: [
      { message: "Fix retries\n\nlong text", author: { name: "Ada" } },
      { message: "Add docs", author: { name: "Bob" } },
    ],
  };
  const sent = await run("github-push-to-slack", {
    headers: { "content-type": "application/json", "x-github-event": "push" },
    body: JSON.stringify(push),
  });
  expect(sent.body.text).toBe("ada pushed 2 commit(s) to acme/api@main");
  expect(sent.body.blocks[1].text.text).toBe("• Fix retries (Ada)\n• Add docs (Bob)");
});

test("Stripe event → reduced JSON", async () => {
  const event = {
    id: "evt_1",
    type: "payment_intent.succeeded",
    data: { object: { customer: "cus_9", amount: 4250, currency: "eur", metadata: { big: "x" } } },
  };
  const sent = await run("stripe-reduced", {
    headers: { "content-type": "application/json" },
    body: JSON.stringify(event),
  });
  expect(sent.body).toEqual({
    id: "evt_1",
    type: "payment_intent.succeeded",
    customer: "cus_9",
    amount: 42.5,
    currency: "EUR",
  });
  expect(sent.headers.authorization).toBe("Bearer b-123");
});

test("dropping pings", async () => {
  const ping = await run("drop-pings", { headers: { "x-github-event": "ping" }, body: "{}" });
  expect(ping).toBeNull();
  const push = await run("drop-pings", { headers: { "x-github-event": "push" }, body: '{"a":1}' });
  expect(push.body).toEqual({ a: 1 });
});
