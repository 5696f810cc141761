import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs, createDebugEndpoint } from "../test-utils/endpoints.ts";
import { type HttpSink, startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

// The worked examples of docs/actions.md, created exactly as written there.
const DOC = readFileSync(join(import.meta.dir, "../../docs/actions.md"), "utf8");
const CHAT = "http://chat.lan:8065";

/** The action bodies (`-d '…'`) of the section whose heading starts with `heading`. */
function examples(heading: string): Record<string, unknown>[] {
  const start = DOC.indexOf(`### ${heading}`);
  if (start < 0) throw new Error(`docs/actions.md has no section ${heading}`);
  const end = DOC.indexOf("\n### ", start + 4);
  const section = DOC.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/-d '(\{[\s\S]*?\})'/g)].map((m) => JSON.parse(m[1] as string));
}

let server: TestServer;
let owner: TestAccount;
let sink: HttpSink;
beforeAll(async () => {
  server = await startTestServer({ config: { capture_rate_limit: "off" } });
  owner = await signUp(server, { plan: "team" });
  sink = startHttpSink();
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

async function endpointWith(heading: string) {
  const endpoint = await createDebugEndpoint(server, owner);
  for (const body of examples(heading)) {
    const json = JSON.parse(JSON.stringify(body).replaceAll(CHAT, sink.url));
    const made = await callAs(
      server,
      owner,
      "POST",
      `/api/v1/endpoints/${endpoint.id}/actions`,
      json,
    );
    expect(made.status).toBe(201);
  }
  return endpoint;
}

const capture = (slug: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/w/${slug}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

test("a chat notification on a GitHub push", async () => {
  const endpoint = await endpointWith("A chat notification");
  const push = {
    pusher: { name: "ada" },
    repository: { full_name: "acme/api" },
    commits: [{ id: "abc123" }],
  };
  await capture(endpoint.slug, { zen: "ping" }, { "x-github-event": "ping" });
  await capture(endpoint.slug, push, { "x-github-event": "push" });
  const sent = await pollUntil(() => sink.requests.find((r) => r.path === "/hooks/abc"));
  expect(JSON.parse(new TextDecoder().decode(sent.body))).toEqual({
    text: "ada pushed abc123 to acme/api",
  });
  expect(sink.requests.filter((r) => r.path === "/hooks/abc")).toHaveLength(1);
});

test("a counter and a last-seen value", async () => {
  const endpoint = await endpointWith("A counter");
  for (const delivery of ["d-1", "d-2", "d-3"]) {
    expect((await capture(endpoint.slug, {}, { "x-github-delivery": delivery })).status).toBe(200);
  }
  const stored = () =>
    server.deps.db.sqlite
      .query<{ name: string; value: string }, [string]>(
        "SELECT name, value FROM endpoint_variables WHERE endpoint_id = ? ORDER BY name",
      )
      .all(endpoint.id);
  await pollUntil(() => stored().find((v) => v.name === "count" && v.value === "3"));
  expect(stored()).toEqual([
    { name: "count", value: "3" },
    { name: "last_delivery", value: '"d-3"' },
  ]);
});

test("a conditional answer", async () => {
  const endpoint = await endpointWith("A conditional answer");
  const large = await capture(endpoint.slug, { amount: 1500 });
  expect(large.status).toBe(202);
  expect(large.headers.get("x-review")).toBe("needed");
  expect(await large.json()).toEqual({ review: true, amount: 1500 });
  const small = await capture(endpoint.slug, { amount: 10 });
  expect(small.status).toBe(200);
  expect(await small.json()).toMatchObject({ message: "Webhook received" });
});
