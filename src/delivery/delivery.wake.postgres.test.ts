import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { CLUSTER_CHANNEL } from "../cluster/cluster.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import type { Config } from "../shared/config.table.ts";
import { type DeliveryNode, startDeliveryNode } from "../test-utils/delivery-node.ts";
import { type HttpSink, startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { openMigratedPgDatabase } from "../test-utils/postgres-migrated.ts";
import { generateSigningSecret } from "./delivery.signing.ts";

/**
 * Deliveries enqueued on one node are claimed by the others at once: the enqueuing node tells
 * them through the cluster (one notification per short window), so no node waits for its poll.
 * These nodes never poll, so only that wake can bring them another node's rows.
 */

const databases = usePgDatabases();
const secret = generateSigningSecret();
let sink: HttpSink;
const nodes: DeliveryNode[] = [];
const admins: PostgresDb[] = [];

beforeAll(() => {
  sink = startHttpSink();
});
afterAll(async () => {
  await sink.stop();
});
afterEach(async () => {
  for (const node of nodes.splice(0)) await node.stop().catch(() => {});
  for (const admin of admins.splice(0)) await admin.close();
  sink.requests.length = 0;
});

async function outboxDatabase(): Promise<{ url: string; admin: PostgresDb }> {
  const admin = await openMigratedPgDatabase(databases, { poolSize: 2 });
  admins.push(admin);
  return { url: admin.url, admin };
}

/** A clustered node that never polls; `delivery_concurrency: 0` makes one that never claims. */
async function node(url: string, config: Partial<Config> = {}): Promise<DeliveryNode> {
  const started = await startDeliveryNode(url, sink.url, secret, config, {
    cluster: true,
    withoutPoll: true,
  });
  nodes.push(started);
  return started;
}

/** Enqueues one delivery per subject through `into`, one transaction each, waking after each. */
async function enqueue(into: DeliveryNode, subjects: string[]): Promise<void> {
  const enqueuePostgres = into.ports.enqueuePostgres;
  if (!enqueuePostgres) throw new Error("the PostgreSQL outbox lends enqueuePostgres");
  for (const subjectId of subjects) {
    await into.postgres.sql.begin((tx) =>
      enqueuePostgres(tx, [
        { kind: "event", organizationId: "org", subjectId, destinationKey: "dest", maxRetries: 5 },
      ]),
    );
    into.ports.wake();
  }
}

describe("the PostgreSQL outbox wakes every node", () => {
  test("deliveries enqueued on a node that cannot send are sent by another node at once", async () => {
    const { url, admin } = await outboxDatabase();
    const busy = await node(url, { delivery_concurrency: 0 });
    await node(url);
    const subjects = Array.from({ length: 20 }, (_, i) => `s${i}`);
    await enqueue(busy, subjects);

    await pollUntil(
      async () => {
        const [row] = await admin.sql<{ n: number }[]>`
          SELECT count(*)::int AS n FROM deliveries WHERE status = 'delivered'`;
        return row?.n === subjects.length;
      },
      { timeoutMs: 5_000, what: "every delivery sent and recorded by the other node" },
    );
    expect(sink.requests.map((r) => r.path.slice(1)).sort()).toEqual([...subjects].sort());
  }, 30_000);

  test("a burst of wakes sends one notification at once and one at the end of its window", async () => {
    const { url, admin } = await outboxDatabase();
    const enqueuing = await node(url, { delivery_concurrency: 0 });
    const heard: string[] = [];
    const listening = await admin.sql.listen(CLUSTER_CHANNEL, (text) => heard.push(text));
    const count = (event: string) => heard.filter((text) => text.includes(`"${event}"`)).length;

    let published = 0;
    enqueuing.bus.on("delivery.due", () => {
      published++;
    });

    await enqueue(enqueuing, ["burst"]);
    expect(published).toBe(1);
    for (let i = 0; i < 100; i++) enqueuing.ports.wake();
    // The wakes inside the window wait for its end (PostgreSQL would fold identical
    // notifications of one transaction, so the count on the channel alone proves little).
    expect(published).toBe(1);
    await pollUntil(() => count("delivery.due") >= 2, { what: "the window's last notification" });
    expect(published).toBe(2);
    // The bridge sends in publish order: once this is heard, every wake before it was too.
    enqueuing.bus.publish("routes.changed", {});
    await pollUntil(() => count("routes.changed") === 1, { what: "the fence event" });
    expect(count("delivery.due")).toBe(2);
    await listening.unlisten();
  }, 30_000);
});
