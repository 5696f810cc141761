/**
 * A node ingesting into one source on PostgreSQL as fast as it can, for the kill -9 test
 * (src/routing/ingest.crash.postgres.test.ts): each request goes through the ingest service as
 * `/in/{slug}` does, and the id of each acknowledged event is printed once its transaction
 * committed (what a 200 answer tells the sender).
 *   bun src/test-utils/ingest-child.ts <database-url> <source-id> <workers>
 */
import { openPostgres } from "../db/db.postgres.ts";
import { createPostgresDedupKeys } from "../dedup/dedup.keys.postgres.ts";
import { createCheckDedupPostgres } from "../dedup/dedup.postgres.ts";
import { prepareDedup } from "../dedup/dedup.service.ts";
import { createPostgresOutboxPorts } from "../delivery/delivery.outbox.postgres.ts";
import { createDeliveryPostgresStore } from "../delivery/delivery.postgres.ts";
import { createBridgesPostgresStore } from "../routing/bridges.postgres.ts";
import type { EventsRepo } from "../routing/events.repo.ts";
import { createIngestService } from "../routing/ingest.service.ts";
import { createIngestPostgresWriter } from "../routing/ingest-writer.postgres.ts";
import { createSourcesPostgresStore } from "../routing/sources.postgres.ts";
import { createSystemClock } from "../shared/clock.ts";
import { createIds } from "../shared/ids.ts";

const [url, sourceId, workersText] = process.argv.slice(2);
if (!url || !sourceId || !workersText) {
  console.error("usage: ingest-child.ts <database-url> <source-id> <workers>");
  process.exit(2);
}
const pg = await openPostgres(url, { poolSize: 8 });
const clock = createSystemClock();
const ids = createIds();
const outbox = createPostgresOutboxPorts(
  { clock, ids, postgres: pg },
  createDeliveryPostgresStore(pg),
  new Map(),
  [],
  () => {
    throw new Error("this node runs no delivery worker");
  },
);
const service = createIngestService(
  {
    // The writer path never reads SQLite's events: only the retry and the event kind do.
    events: {} as EventsRepo,
    delivery: null,
    tx: () => {
      throw new Error("on PostgreSQL nothing is written to SQLite");
    },
    routeStores: {
      sources: createSourcesPostgresStore(pg),
      bridges: createBridgesPostgresStore(pg),
    },
    writer: createIngestPostgresWriter(pg, {
      checkDedup: createCheckDedupPostgres(createPostgresDedupKeys(pg.sql), () => clock.now()),
      enqueueDeliveries: async (tx, deliveries) =>
        (await outbox.enqueuePostgres?.(tx, deliveries)) ?? [],
    }),
    clock,
    ids,
    signingSecrets: () => [],
    routesVersion: () => 0,
  },
  {
    prepareDedup: (source, view) =>
      prepareDedup({
        sourceId: source.id,
        organizationId: source.organizationId,
        config: source.deduplicationConfig,
        request: view,
        rawBody: "",
      }),
    beginDedup: () => {
      throw new Error("on PostgreSQL dedup is checked in the event's transaction");
    },
  },
);

async function work(worker: number): Promise<never> {
  for (let n = 0; ; n++) {
    const plan = await service.awaitPlanById(sourceId as string);
    if (!plan) throw new Error("the source is gone");
    const body = new TextEncoder().encode(JSON.stringify({ worker, n, pid: process.pid }));
    const outcome = await service.ingest(plan, {
      method: "POST",
      path: "",
      queryString: "",
      headers: { "content-type": "application/json" },
      rawHeaders: [["content-type", "application/json"]],
      body,
    });
    if ("eventId" in outcome) process.stdout.write(`${outcome.eventId}\n`);
  }
}

await Promise.all(Array.from({ length: Number(workersText) }, (_, i) => work(i)));
