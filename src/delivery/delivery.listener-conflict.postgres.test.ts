import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import type { Config } from "../shared/config.table.ts";
import { type DeliveryNode, startDeliveryNode } from "../test-utils/delivery-node.ts";
import { type HttpSink, startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { openMigratedPgDatabase } from "../test-utils/postgres-migrated.ts";
import type { DeliveryRoomPorts } from "./delivery.room.ts";
import { generateSigningSecret } from "./delivery.signing.ts";

/**
 * An attempt's listener (the kind's owner or an observer) that meets a lock conflict (deadlock,
 * serialization failure) is no faulty listener: the whole outcome is recorded again, alone, so
 * the listener's writes are not lost. Any other error undoes only that listener's writes. The
 * conflicts here are real server errors, raised with their SQLSTATE.
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

/** What the observer raises on its first hearings of a subject: a SQLSTATE each, in order. */
type Raise = Record<string, string[]>;

/**
 * A node whose observer writes one `heard` row per hearing of a delivery, after raising the
 * SQLSTATEs `raise` names for its subject on its first hearings, as a deadlocked or failing
 * statement would.
 */
async function nodeWithObserver(raise: Raise, sinkUrl = sink.url, config: Partial<Config> = {}) {
  const admin = await openMigratedPgDatabase(databases, { poolSize: 2 });
  admins.push(admin);
  await admin.sql`CREATE TABLE heard (subject TEXT NOT NULL)`;
  const raised: string[] = [];
  const node = await startDeliveryNode(admin.url, sinkUrl, secret, config, {
    beforeStart: (ports: DeliveryRoomPorts) =>
      ports.observeAttemptsPostgres?.(async (tx, delivery) => {
        const code = raise[delivery.subjectId]?.shift();
        if (code) {
          raised.push(delivery.subjectId);
          await tx.unsafe(
            `DO $$ BEGIN RAISE EXCEPTION 'as a listener met it' USING ERRCODE = '${code}'; END $$`,
          );
        }
        await tx`INSERT INTO heard (subject) VALUES (${delivery.subjectId})`;
      }),
  });
  nodes.push(node);
  return { node, admin, raised };
}

/** Enqueues one delivery per subject in one transaction and wakes the node. */
async function enqueue(node: DeliveryNode, subjects: string[]) {
  const enqueuePostgres = node.ports.enqueuePostgres;
  if (!enqueuePostgres) throw new Error("the PostgreSQL outbox lends enqueuePostgres");
  await node.postgres.sql.begin((tx) =>
    enqueuePostgres(
      tx,
      subjects.map((subjectId) => ({
        kind: "event" as const,
        organizationId: "org",
        subjectId,
        destinationKey: "dest",
        maxRetries: 5,
      })),
    ),
  );
  node.ports.wake();
}

/** Per subject: its status, its recorded attempts and its `heard` rows, once all are delivered. */
async function settled(admin: PostgresDb, subjects: string[], timeoutMs = 10_000) {
  await pollUntil(
    async () => {
      const [row] = await admin.sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM deliveries WHERE status = 'delivered'`;
      return row?.n === subjects.length;
    },
    { timeoutMs, what: "every delivery recorded as delivered" },
  );
  const attempts = await admin.sql<{ subject: string; n: number }[]>`
    SELECT d.subject_id AS subject, count(a.id)::int AS n
      FROM deliveries d LEFT JOIN delivery_attempts a ON a.delivery_id = d.id
     GROUP BY d.subject_id ORDER BY d.subject_id`;
  const heard = await admin.sql<{ subject: string; n: number }[]>`
    SELECT subject, count(*)::int AS n FROM heard GROUP BY subject ORDER BY subject`;
  const asMap = (rows: { subject: string; n: number }[]) =>
    Object.fromEntries(rows.map((row) => [row.subject, row.n]));
  return { attempts: asMap([...attempts]), heard: asMap([...heard]) };
}

const everyOnce = (subjects: string[]) => Object.fromEntries(subjects.map((s) => [s, 1]));

describe("a lock conflict in an attempt's listener", () => {
  test("a deadlock records the whole outcome again: the listener's write is kept, once", async () => {
    const subjects = ["a", "b", "c", "d", "e", "f"];
    // c meets a deadlock twice: in its batch, then recorded alone, where it is tried again.
    const { node, admin, raised } = await nodeWithObserver({
      c: ["40P01", "40P01"],
      e: ["40001"],
    });
    await enqueue(node, subjects);
    const { attempts, heard } = await settled(admin, subjects);
    expect(raised.sort()).toEqual(["c", "c", "e"]);
    expect(attempts).toEqual(everyOnce(subjects));
    expect(heard).toEqual(everyOnce(subjects));
    // Recorded again from the outcome, not sent again.
    expect(sink.requests.map((r) => r.path.slice(1)).sort()).toEqual(subjects);
  }, 30_000);

  test("any other error undoes only that listener's writes; the attempt stays recorded", async () => {
    const subjects = ["a", "b", "c"];
    const { node, admin, raised } = await nodeWithObserver({ b: ["P0001"] });
    await enqueue(node, subjects);
    const { attempts, heard } = await settled(admin, subjects);
    expect(raised).toEqual(["b"]);
    expect(attempts).toEqual(everyOnce(subjects));
    expect(heard).toEqual({ a: 1, c: 1 });
    expect(sink.requests).toHaveLength(subjects.length);
  }, 30_000);
});

describe("an attempt whose lease was lost before its outcome was recorded", () => {
  test("is recorded and its observers hear it; the row is the new owner's", async () => {
    // The destination answers the first attempt only after another claim took the row (its
    // lease moved), as when a node stalled past its lease; the row runs again when that ends.
    let admin: PostgresDb | null = null;
    let taken = false;
    const stealing = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch() {
        if (taken || !admin) return new Response("ok");
        taken = true;
        await admin.sql`UPDATE deliveries SET locked_until = locked_until + 1 WHERE subject_id = 'lost'`;
        return new Response("down", { status: 500 });
      },
    });
    try {
      // Leases of 5 s (twice the timeouts, at least 5 s), so the row comes back soon.
      const world = await nodeWithObserver({}, `http://127.0.0.1:${stealing.port}`, {
        destination_timeout_ms: 2_000,
        forward_timeout_ms: 2_000,
      });
      admin = world.admin;
      await enqueue(world.node, ["lost"]);
      const { attempts, heard } = await settled(world.admin, ["lost"], 15_000);
      expect(taken).toBe(true);
      expect(attempts).toEqual({ lost: 2 });
      expect(heard).toEqual({ lost: 2 });
    } finally {
      stealing.stop(true);
    }
  }, 30_000);
});
