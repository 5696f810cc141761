import { afterAll, beforeAll, expect, test } from "bun:test";
import { createOutboundPolicy } from "../http/outbound/outbound.policy.ts";
import { createOutboundSender } from "../http/outbound/outbound.sender.ts";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { createBridge } from "../test-utils/bridges.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { everyStoredRow, storedTableNames } from "../test-utils/stored-rows.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

// A secret is filled in only on the wire (decisions.md §8): after deliveries that used secrets in
// a URL's host and path, in a header, and as Telegram bot tokens all failed, no stored row, log
// line, API answer or metric holds a value. The sink echoes what it got, as a careless
// destination would, so an answer that quotes a header is covered too.
let server: TestServer;
let owner: TestAccount;
const sink = startHttpSink();
const telegram = startHttpSink();

const SECRETS = {
  HOOK_HOST: "weir-secret-host-7f3a.invalid",
  HOOK_PATH: "secret-path-9c1e",
  HOOK_TOKEN: "secret-header-b2d4",
  TG_TOKEN: "123456:secret-bot-token-e5f6",
};
const LITERAL_BOT_TOKEN = "654321:literal-bot-token-a1b2";
const ALERT_BOT_TOKEN = "777777:alert-bot-token-c3d4";
const HIDDEN = [...Object.values(SECRETS), LITERAL_BOT_TOKEN, ALERT_BOT_TOKEN];

beforeAll(async () => {
  const config = { telegram_api_base: telegram.url, retry_base_ms: 50, retry_cap_ms: 100 };
  server = await startTestServer({ config, outbound: senderNamingUnknownHosts() });
  owner = await signUp(server, { plan: "team" });
  const echo = (r: { path: string; query: string; headers: Headers }) => ({
    status: 500,
    body: JSON.stringify({ path: r.path, query: r.query, headers: Object.fromEntries(r.headers) }),
  });
  sink.answer(echo);
  telegram.answer(echo);
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
  await telegram.stop();
});

/**
 * The real sender, with a resolver that fails at once for the secret host and names it in its
 * message as a system resolver does (`getaddrinfo ENOTFOUND <host>`): the message that must not
 * be stored as it came.
 */
function senderNamingUnknownHosts() {
  return createOutboundSender({
    policy: createOutboundPolicy({ deny: [], allow: [] }),
    timeoutMs: 5_000,
    resolve: async (hostname) => {
      if (hostname === "127.0.0.1") return [{ address: hostname, family: 4 }];
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    },
  });
}

/** Every row of every table of the server's database but `skipped`, as one string. */
async function databaseText(skipped: readonly string[] = []): Promise<string> {
  const tables = (await storedTableNames(server)).filter((name) => !skipped.includes(name));
  const texts: string[] = [];
  for (const name of tables) texts.push(JSON.stringify(await everyStoredRow(server, `"${name}"`)));
  return texts.join("\n");
}

test("secrets in a URL's host and path, a header and bot tokens are never stored, logged or shown", async () => {
  for (const [name, value] of Object.entries(SECRETS)) {
    const created = await callAs(server, owner, "POST", "/api/v1/secrets", { name, value });
    expect(created.status).toBe(201);
  }
  const rule = await callAs(server, owner, "POST", "/api/v1/alert-rules", {
    name: "Failures to Telegram",
    condition: { type: "issue_created" },
    channel: { type: "telegram", bot_token: ALERT_BOT_TOKEN, chat_id: "-1001" },
    enabled: true,
  });
  expect(rule.status).toBe(201);
  const { bridge, ingestUrl } = await createBridge(server, owner, {
    name: "Secretive",
    source: { name: "Secretive", type: "webhook" },
    destinations: [
      { name: "host", url: "http://{{HOOK_HOST}}/hooks", max_retries: 0 },
      {
        name: "path and header",
        url: `${sink.url}/{{HOOK_PATH}}/in?key={{HOOK_PATH}}`,
        headers: { authorization: "Bearer {{HOOK_TOKEN}}" },
        max_retries: 0,
      },
      { name: "bot", type: "telegram", bot_token: "{{TG_TOKEN}}", chat_id: "42", max_retries: 0 },
      { name: "literal bot", type: "telegram", bot_token: LITERAL_BOT_TOKEN, chat_id: "43" },
    ],
  });
  const ingested = await fetch(`${ingestUrl}/orders`, {
    method: "POST",
    body: '{"id":1}',
  });
  const { event_id } = (await ingested.json()) as { event_id: string };

  // The literal-token destination keeps retrying (default max_retries): wait for its attempts too.
  const event = await pollUntil(
    async () => {
      const e = (await callAs(server, owner, "GET", `/api/v1/events/${event_id}`)).body.data;
      const tried = e.deliveries.filter((d: { attempts: number }) => d.attempts >= 1);
      return tried.length === 4 && e.status === "failed" ? e : undefined;
    },
    { what: "every delivery tried and the event failed" },
  );
  await pollUntil(
    () => (telegram.requests.some((r) => r.path.includes(ALERT_BOT_TOKEN)) ? true : undefined),
    { what: "the alert sent to Telegram" },
  );
  // The secrets did reach the wire: only what is kept of it is concealed.
  expect(sink.requests[0]?.path).toBe(`/${SECRETS.HOOK_PATH}/in/orders`);
  expect(sink.requests[0]?.headers.get("authorization")).toBe(`Bearer ${SECRETS.HOOK_TOKEN}`);
  const issues = await callAs(server, owner, "GET", "/api/v1/issues");
  expect(issues.body.items.length).toBeGreaterThan(0);

  const byName = Object.fromEntries(
    event.deliveries.map((d: { destination_id: string }) => [
      bridge.destinations.find((x: { id: string }) => x.id === d.destination_id).name,
      d,
    ]),
  );
  expect(byName["path and header"].sent).toMatchObject({
    url: `${sink.url}/{{HOOK_PATH}}/in/orders?key={{HOOK_PATH}}`,
    headers: { authorization: "Bearer {{HOOK_TOKEN}}" },
  });
  expect(byName.host).toMatchObject({
    error_code: "dns_failure",
    error_message: "getaddrinfo ENOTFOUND {{HOOK_HOST}}",
    sent: { url: "http://{{HOOK_HOST}}/hooks/orders" },
  });
  expect(byName.bot.sent.url).toBe(`${telegram.url}/bot***/sendMessage`);
  expect(byName["literal bot"].sent.url).toBe(`${telegram.url}/bot***/sendMessage`);

  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  const shown = [
    JSON.stringify(event),
    JSON.stringify(issues.body),
    server.logs.join("\n"),
    metrics,
  ].join("\n");
  for (const value of HIDDEN) expect(shown.toLowerCase()).not.toContain(value.toLowerCase());
  // Secret values are nowhere in the database (the secrets table holds them encrypted); a token
  // written literally into a destination or a rule stays in its settings, and only there.
  const database = (await databaseText()).toLowerCase();
  for (const value of Object.values(SECRETS)) expect(database).not.toContain(value.toLowerCase());
  const outsideSettings = (await databaseText(["destinations", "alert_rules"])).toLowerCase();
  for (const value of HIDDEN) expect(outsideSettings).not.toContain(value.toLowerCase());
});

/**
 * Stores `secret` as `name`, sends one event through a new bridge whose only destination at
 * `echoUrl` gets it in its x-token header (no retry), and returns that event's one attempt.
 */
async function echoedAttempts(echoUrl: string, name: string, secret: string, bridge: string) {
  const added = await callAs(server, owner, "POST", "/api/v1/secrets", { name, value: secret });
  expect(added.status).toBe(201);
  const created = await callAs(server, owner, "POST", "/api/v1/bridges", {
    name: bridge,
    source: { name: bridge, type: "webhook" },
    destinations: [
      { name: "echo", url: echoUrl, headers: { "x-token": `{{${name}}}` }, max_retries: 0 },
    ],
  });
  expect(created.status).toBe(201);
  const ingested = await server.request(`/api/v1/sources/${created.body.data.source_id}/ingest`, {
    method: "POST",
    body: "{}",
  });
  const { event_id } = (await ingested.json()) as { event_id: string };
  return pollUntil(
    async () => {
      const answer = await callAs(server, owner, "GET", `/api/v1/events/${event_id}/attempts`);
      return answer.body.data.length === 1 ? answer.body.data : undefined;
    },
    { what: "the echoed answer recorded" },
  );
}

test("an answer echoing a secret across the 64 KiB cut keeps no part of it", async () => {
  const secret = "q7Zk9wXv-echoed-across-the-cut-4d1e";
  const shownBefore = 8;
  const echo = startHttpSink();
  // What the destination echoes lands just before the cut: its first characters fit, the rest not.
  echo.answer((r) => ({
    status: 500,
    body: `${"x".repeat(65_536 - shownBefore)}${r.headers.get("x-token") ?? ""}`,
  }));
  try {
    const attempts = await echoedAttempts(echo.url, "CUT_TOKEN", secret, "Echo at the cut");
    expect(echo.requests[0]?.headers.get("x-token")).toBe(secret);
    const kept = attempts[0].response_body as string;
    expect(kept.startsWith("xxxx")).toBe(true);
    // Asserted as booleans: a failure would otherwise print 64 KiB of answer.
    expect(kept.includes(secret.slice(0, shownBefore))).toBe(false);
    expect(kept.length).toBeLessThanOrEqual(65_536);
    expect((await databaseText()).includes(secret.slice(0, shownBefore))).toBe(false);
  } finally {
    await echo.stop();
  }
});

test("an answer echoing a secret inside JSON, slashes and quotes escaped, shows it concealed", async () => {
  const secret = 'tok/3n+"quoted"\\9Zq=';
  const echo = startHttpSink();
  // As a JSON encoder that escapes "/" answers (PHP's does by default).
  echo.answer((r) => ({
    status: 500,
    body: JSON.stringify({ token: r.headers.get("x-token") }).replaceAll("/", "\\/"),
  }));
  try {
    const attempts = await echoedAttempts(echo.url, "JSON_TOKEN", secret, "Echo as JSON");
    expect(echo.requests[0]?.headers.get("x-token")).toBe(secret);
    expect(attempts[0].response_body).toBe('{"token":"{{JSON_TOKEN}}"}');
  } finally {
    await echo.stop();
  }
});
