import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { Webhook } from "standardwebhooks";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { type DeliveryNode, startDeliveryNode } from "../test-utils/delivery-node.ts";
import { type HttpSink, type SinkRequest, startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { openMigratedPgDatabase } from "../test-utils/postgres-migrated.ts";
import type { NewDelivery } from "./delivery.ports.ts";
import { generateSigningSecret } from "./delivery.signing.ts";

/**
 * Several nodes on one PostgreSQL outbox: each delivery is sent by one live node, and the rows a
 * killed node held are sent by another once their leases lapse, with the same webhook-id.
 */

const databases = usePgDatabases();
/** Short timeouts make the lease its floor (5 s), so a dead node's rows come back soon. */
const FAST = { destination_timeout_ms: 2_000, forward_timeout_ms: 2_000 };
const secret = generateSigningSecret();
let sink: HttpSink;
const nodes: DeliveryNode[] = [];
const children: Subprocess[] = [];
const admins: PostgresDb[] = [];

beforeAll(() => {
  sink = startHttpSink();
});
afterAll(async () => {
  await sink.stop();
});
afterEach(async () => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const node of nodes.splice(0)) await node.stop().catch(() => {});
  for (const admin of admins.splice(0)) await admin.close();
  sink.requests.length = 0;
  sink.answer(() => ({ status: 200, body: "ok" }));
});

/** A migrated database of the test's own and a client the test reads it with. */
async function outboxDatabase(): Promise<{ url: string; admin: PostgresDb }> {
  const admin = await openMigratedPgDatabase(databases, { poolSize: 2 });
  admins.push(admin);
  return { url: admin.url, admin };
}

async function node(url: string): Promise<DeliveryNode> {
  const started = await startDeliveryNode(url, sink.url, secret, FAST);
  nodes.push(started);
  return started;
}

/** Starts a node in a child process and waits until its worker runs. */
async function childNode(url: string): Promise<Subprocess<"ignore", "pipe", "inherit">> {
  const child = Bun.spawn(
    ["bun", join(import.meta.dir, "../test-utils/delivery-child.ts"), url, sink.url, secret],
    { stdout: "pipe", stderr: "inherit" },
  );
  children.push(child);
  const reader = child.stdout.getReader();
  let printed = "";
  while (!printed.includes("ready")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the delivery child ended before it was ready: ${printed}`);
    printed += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return child;
}

/** `n` event deliveries over a few destinations and organizations, written in one transaction. */
async function enqueue(into: DeliveryNode, n: number): Promise<string[]> {
  const items: NewDelivery[] = Array.from({ length: n }, (_, i) => ({
    kind: "event",
    organizationId: `org-${i % 3}`,
    subjectId: `s${i}`,
    destinationKey: `dest-${i % 10}`,
    maxRetries: 5,
  }));
  const enqueuePostgres = into.ports.enqueuePostgres;
  if (!enqueuePostgres) throw new Error("the PostgreSQL outbox lends enqueuePostgres");
  await into.postgres.sql.begin((tx) => enqueuePostgres(tx, items));
  into.ports.wake();
  return items.map((item) => item.subjectId);
}

const subjectOf = (request: SinkRequest) => request.path.slice(1);

/** Every request the sink got for each subject, in order. */
function bySubject(requests: readonly SinkRequest[]): Map<string, SinkRequest[]> {
  const seen = new Map<string, SinkRequest[]>();
  for (const request of requests) {
    const list = seen.get(subjectOf(request)) ?? [];
    list.push(request);
    seen.set(subjectOf(request), list);
  }
  return seen;
}

function verified(request: SinkRequest): string {
  const headers = Object.fromEntries(request.headers.entries());
  new Webhook(secret).verify(new TextDecoder().decode(request.body), headers);
  return headers["webhook-id"] ?? "";
}

async function allDelivered(admin: PostgresDb, n: number, timeoutMs: number): Promise<void> {
  await pollUntil(
    async () => {
      const [row] = await admin.sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM deliveries WHERE status = 'delivered'`;
      return row?.n === n;
    },
    { timeoutMs, intervalMs: 100, what: `${n} deliveries delivered` },
  );
}

/** Each row's attempts column matches its recorded attempts: no outcome without its attempt. */
async function attemptsRecorded(admin: PostgresDb): Promise<void> {
  const mismatched = await admin.sql`
    SELECT d.id FROM deliveries d
     WHERE d.attempts <> (SELECT count(*) FROM delivery_attempts a WHERE a.delivery_id = d.id)
        OR d.locked_until IS NOT NULL OR d.next_attempt_at IS NOT NULL`;
  expect(mismatched.length).toBe(0);
}

describe("the PostgreSQL outbox across nodes", () => {
  test("three nodes send each of 300 deliveries exactly once, signed, with its own webhook-id", async () => {
    const { url, admin } = await outboxDatabase();
    const [first, second, third] = [await node(url), await node(url), await node(url)];
    if (!first || !second || !third) throw new Error("three nodes");
    // Slow answers spread the work: a node busy with its slots leaves rows to the others.
    sink.answer(() => ({ status: 200, body: "ok", delayMs: 20 }));
    const subjects = await enqueue(first, 300);
    second.ports.wake();
    third.ports.wake();
    await allDelivered(admin, 300, 60_000);

    const seen = bySubject(sink.requests);
    expect([...seen.keys()].sort()).toEqual([...subjects].sort());
    for (const [, requests] of seen) expect(requests.length).toBe(1);
    const ids = sink.requests.map(verified);
    expect(new Set(ids).size).toBe(300);
    const stored = await admin.sql<{ webhook_id: string }[]>`SELECT webhook_id FROM deliveries`;
    expect(new Set(stored.map((r) => r.webhook_id))).toEqual(new Set(ids));
    await attemptsRecorded(admin);
  }, 90_000);

  test("a node killed with requests in flight leaves them to another after the lease, same webhook-id", async () => {
    const { url, admin } = await outboxDatabase();
    // Held answers: the child has claimed rows and sent them when it dies.
    sink.answer(() => ({ status: 200, body: "ok", delayMs: 1_500 }));
    const child = await childNode(url);
    const direct = await openPostgres(url, { poolSize: 1 });
    admins.push(direct);
    await seed(direct, 20);
    await pollUntil(() => sink.requests.length >= 5, {
      timeoutMs: 20_000,
      what: "the child's first requests",
    });
    const [claimed] = await admin.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM deliveries WHERE locked_until IS NOT NULL`;
    expect(claimed?.n ?? 0).toBeGreaterThan(0);
    child.kill("SIGKILL");
    await child.exited;

    sink.answer(() => ({ status: 200, body: "ok" }));
    await node(url);
    await allDelivered(admin, 20, 30_000);

    const seen = bySubject(sink.requests);
    expect(seen.size).toBe(20);
    let repeated = 0;
    for (const [, requests] of seen) {
      const ids = new Set(requests.map(verified));
      expect(ids.size).toBe(1);
      if (requests.length > 1) repeated++;
    }
    // The child's unanswered requests went out again from the survivor.
    expect(repeated).toBeGreaterThan(0);
    await attemptsRecorded(admin);
  }, 90_000);

  test("kill -9 while attempts are being recorded: every delivery is sent and recorded whole", async () => {
    const { url, admin } = await outboxDatabase();
    const child = await childNode(url);
    const direct = await openPostgres(url, { poolSize: 1 });
    admins.push(direct);
    await seed(direct, 200);
    // Killed mid-stream: some outcomes committed, others sent and not yet recorded.
    await pollUntil(
      async () => {
        const [row] = await admin.sql<{ n: number }[]>`
          SELECT count(*)::int AS n FROM delivery_attempts`;
        return (row?.n ?? 0) >= 20;
      },
      { timeoutMs: 30_000, intervalMs: 5, what: "the child's first recorded attempts" },
    );
    child.kill("SIGKILL");
    await child.exited;
    await node(url);
    await allDelivered(admin, 200, 40_000);

    const [recorded] = await admin.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM delivery_attempts`;
    expect(recorded?.n).toBe(200);
    const seen = bySubject(sink.requests);
    expect(seen.size).toBe(200);
    for (const [, requests] of seen) expect(new Set(requests.map(verified)).size).toBe(1);
    await attemptsRecorded(admin);
  }, 90_000);
});

/**
 * Writes `n` due deliveries with plain SQL, as another node's enqueue would: the nodes find
 * them by polling, not through a wake of their own.
 */
async function seed(pg: PostgresDb, n: number): Promise<void> {
  const now = Date.now();
  const at = new Date(now).toISOString();
  await pg.sql.begin(async (tx) => {
    for (let i = 0; i < n; i++) {
      await tx`INSERT INTO deliveries (id, kind, organization_id, subject_id, destination_key,
                 webhook_id, status, attempts, max_retries, next_attempt_at, created_at, updated_at)
               VALUES (${`d${i}`}, 'event', ${`org-${i % 3}`}, ${`s${i}`}, ${`dest-${i % 10}`},
                 ${`msg_${crypto.randomUUID()}`}, 'pending', 0, 5, ${now}, ${at}, ${at})`;
    }
  });
}
