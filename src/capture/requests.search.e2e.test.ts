/**
 * Request lists filtered on the server (decisions.md §14): `q` across the endpoint's whole
 * history (path, query, headers, body), `method`, `since`, `until`, on both endpoint families and
 * anonymous endpoints, envelope and pagination unchanged, the index kept by every delete.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { testStore } from "../test-utils/test-store.ts";

const clock = createFakeClock(Date.UTC(2026, 0, 1, 12));
let server: TestServer;
let account: TestAccount;
let endpoint: { id: string; slug: string };
const ids: Record<string, string> = {};

async function capture(slug: string, name: string, init: RequestInit & { sub?: string }) {
  const { sub = "", ...rest } = init;
  const response = await fetch(`${server.url}/w/${slug}${sub}`, rest);
  expect(response.status).toBe(200);
  ids[name] = ((await response.json()) as { request_id: string }).request_id;
  clock.advance(60_000);
}

async function createEndpoint(who: TestAccount, name: string) {
  const answer = await apiCall(server, "POST", "/api/v1/endpoints", {
    headers: who.headers,
    body: { debug_endpoint: { name } },
  });
  return answer.body.data as { id: string; slug: string };
}

beforeAll(async () => {
  server = await startTestServer({ clock, config: { capture_rate_limit: "off" } });
  account = await signUp(server);
  endpoint = await createEndpoint(account, "Search");
  // The oldest first: far beyond the first page once the filler is in.
  await capture(endpoint.slug, "oldest", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: '{"order":"Needle-4711","total":12}',
  });
  await capture(endpoint.slug, "path", { method: "GET", sub: "/hooks/stripe-payments" });
  await capture(endpoint.slug, "query", { method: "GET", sub: "?customer=cus_QUERY9" });
  await capture(endpoint.slug, "header", {
    method: "PUT",
    headers: { "x-signature": "sha256=HeaderValue42" },
    body: "x",
  });
  await capture(endpoint.slug, "quote", { method: "POST", body: 'say "hi" there' });
  for (let i = 0; i < 45; i++) {
    await capture(endpoint.slug, `filler${i}`, { method: "POST", body: `filler ${i}` });
  }
  // The same text in another endpoint, and in another organization: never found here.
  const other = await createEndpoint(account, "Other");
  await capture(other.slug, "elsewhere", { method: "POST", body: "Needle-4711" });
  const stranger = await signUp(server);
  const theirs = await createEndpoint(stranger, "Theirs");
  await capture(theirs.slug, "stranger", { method: "POST", body: "Needle-4711" });
}, 60_000);
afterAll(() => server.stop());

const list = (query: string, family: "endpoints" | "debug-endpoints" = "endpoints") =>
  apiCall(server, "GET", `/api/v1/${family}/${endpoint.id}/requests?${query}`, {
    headers: account.headers,
  });
const idsOf = (answer: { body: { data?: { id: string }[]; debug_requests?: { id: string }[] } }) =>
  (answer.body.data ?? answer.body.debug_requests ?? []).map((r) => r.id);

describe("request search", () => {
  test.each([
    ["body, beyond the loaded pages", "q=needle-4711", ["oldest"]],
    ["path", "q=stripe-pay", ["path"]],
    ["body, starting inside a word", "q=edle-47", ["oldest"]],
    ["query string", "q=cus_query9", ["query"]],
    ["header value", "q=headervalue42", ["header"]],
    ["a double quote", `q=${encodeURIComponent('"hi"')}`, ["quote"]],
    ["two characters (scanned, not indexed)", "q=hi", ["quote"]],
    ["nothing", "q=no-such-text", []],
  ])("q finds text in the %s", async (_, query, names) => {
    const answer = await list(query);
    expect(answer.status).toBe(200);
    expect(idsOf(answer)).toEqual(names.map((n) => ids[n] as string));
    expect(answer.body.total).toBe(names.length);
  });

  test("method, since and until narrow the list; pagination counts the filtered set", async () => {
    const puts = await list("method=put");
    expect(idsOf(puts)).toEqual([ids.header as string]);
    const gets = await list("method=GET,PUT&page_size=2");
    expect(gets.body).toMatchObject({ page: 1, page_size: 2, total: 3 });
    expect(idsOf(gets)).toEqual([ids.header as string, ids.query as string]);
    // Each capture is one minute after the one before, from 12:00.
    const window = await list("since=2026-01-01T12:01:00Z&until=2026-01-01T12:03:00Z");
    expect(idsOf(window)).toEqual([ids.query as string, ids.path as string]);
    const filtered = await list("q=filler&method=POST&page=3&page_size=20");
    expect(filtered.body).toMatchObject({ page: 3, page_size: 20, total: 45 });
    expect(idsOf(filtered)).toHaveLength(5);
    expect(idsOf(filtered).at(-1)).toBe(ids.filler0 as string);
  });

  test("the debug-endpoints family takes the same filter in its own envelope", async () => {
    const answer = await list("q=NEEDLE&since=2026-01-01", "debug-endpoints");
    expect(answer.status).toBe(200);
    expect(idsOf(answer)).toEqual([ids.oldest as string]);
    expect(answer.body.pagination).toEqual({
      page: 1,
      page_size: 20,
      total_count: 1,
      total_pages: 1,
    });
  });

  test.each([
    ["since=yesterday", "since"],
    ["until=2026-02-30T99:00", "until"],
    ["since=2026-02-01&until=2026-01-01", "until"],
    ["method=G%20ET", "method"],
  ])("%s is a 422 naming the field", async (query, field) => {
    for (const family of ["endpoints", "debug-endpoints"] as const) {
      const answer = await list(query, family);
      expect(answer.status).toBe(422);
      expect(answer.body.error).toBe("validation_failed");
      expect(Object.keys(answer.body.errors)).toEqual([field]);
    }
  });

  test("anonymous endpoints take the filter too", async () => {
    const created = (await apiCall(server, "POST", "/api/v1/anonymous-endpoints")).body.data;
    const anon = { slug: created.slug as string };
    await capture(anon.slug, "anonA", { method: "POST", body: "alpha-payload" });
    await capture(anon.slug, "anonB", { method: "POST", body: "beta-payload" });
    const answer = await apiCall(
      server,
      "GET",
      `/api/v1/anonymous-endpoints/${created.id}/requests?q=beta-pay`,
      { headers: { "x-anonymous-token": created.token } },
    );
    expect(answer.status).toBe(200);
    expect(idsOf(answer)).toEqual([ids.anonB as string]);
  });

  // What is checked at the end is SQLite's FTS5 index (its entries go by trigger); PostgreSQL
  // searches the stored rows themselves and has no index to drain.
  test.skipIf(testStore() === "postgres")(
    "emptying the endpoint empties its search too",
    async () => {
      const scratch = await createEndpoint(account, "Scratch");
      await capture(scratch.slug, "gone", { method: "POST", body: "ephemeral-text" });
      const path = `/api/v1/endpoints/${scratch.id}/requests`;
      const find = () =>
        apiCall(server, "GET", `${path}?q=ephemeral`, { headers: account.headers });
      expect((await find()).body.total).toBe(1);
      expect((await apiCall(server, "DELETE", path, { headers: account.headers })).status).toBe(
        204,
      );
      expect((await find()).body.total).toBe(0);
      // The rows (and their index entries, by trigger) are drained in the background; the drain's
      // wake-up is a timer on the (fake) clock.
      clock.advance(0);
      const leftovers = () =>
        (
          server.deps.db.sqlite
            .query(
              "SELECT count(*) AS n FROM captured_requests_search WHERE captured_requests_search MATCH ?",
            )
            .get('"ephemeral"') as { n: number }
        ).n;
      await pollUntil(() => leftovers() === 0, { what: "the drain to remove the index entries" });
    },
  );
});
