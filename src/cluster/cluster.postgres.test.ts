import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { SQL, type Subprocess } from "bun";
import type { DomainEvents } from "../events.ts";
import { type Room, startRooms } from "../room.ts";
import { recordEvents, startTestNode, type TestNode } from "../test-utils/cluster-nodes.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { type TestPgDatabase, usePgDatabases } from "../test-utils/postgres.ts";
import { LEADER_LOCK } from "./cluster.postgres.ts";

const databases = usePgDatabases();
const RETRY_SECONDS = 0.2;
const nodes: TestNode[] = [];
const children: Subprocess[] = [];
const made: TestPgDatabase[] = [];

/** A database of the test's own (the leader's lock is per database), dropped after the test. */
async function freshDatabase(): Promise<TestPgDatabase> {
  const db = await databases.create();
  made.push(db);
  return db;
}

afterEach(async () => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const node of nodes.splice(0)) await node.stop().catch(() => {});
  // Dropped here rather than all after the file: each drop may take a while on a busy server.
  for (const db of made.splice(0)) await db.drop();
});

async function startNodes(url: string, ids: string[]): Promise<TestNode[]> {
  const started = await Promise.all(ids.map((id) => startTestNode(url, id, RETRY_SECONDS)));
  nodes.push(...started);
  return started;
}

const leaders = (all: TestNode[]) => all.filter((node) => node.cluster.isLeader());

/** The backend that holds the leader's lock in this database, if any. */
async function lockHolder(sql: SQL): Promise<number | null> {
  const rows = await sql`
    SELECT pid FROM pg_locks
     WHERE locktype = 'advisory' AND granted
       AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND classid = ${LEADER_LOCK.classId}::oid AND objid = ${LEADER_LOCK.objId}::oid`;
  return rows[0]?.pid ?? null;
}

describe("leadership over PostgreSQL", () => {
  test("three nodes elect one leader; when its session is killed another takes over", async () => {
    const db = await freshDatabase();
    const all = await startNodes(db.url, ["a", "b", "c"]);
    const first = await pollUntil(() => leaders(all).length === 1 && leaders(all)[0], {
      what: "one leader",
    });
    // Several retry periods later the followers have tried and failed: still one leader.
    const admin = new SQL(db.url, { max: 1 });
    try {
      const holder = await pollUntil(() => lockHolder(admin), { what: "the lock's holder" });
      await pollUntil(
        async () =>
          (
            await admin`SELECT count(*)::int AS n FROM pg_stat_activity
                        WHERE datname = current_database()`
          )[0].n >= 4,
        { what: "every node connected" },
      );
      expect(leaders(all)).toEqual([first]);

      await admin`SELECT pg_terminate_backend(${holder}::int)`;
      // The old leader steps down at once (its session ended), not at its next check.
      await pollUntil(() => !first.cluster.isLeader(), { timeoutMs: 1000, what: "step down" });
      const next = await pollUntil(
        () => {
          const now = leaders(all);
          return now.length === 1 && now[0];
        },
        { timeoutMs: 5000, what: "a new leader" },
      );
      expect(await lockHolder(admin)).not.toBe(holder);
      expect(leaders(all)).toEqual([next]);
    } finally {
      await admin.close();
    }
  });

  test("a stopping leader hands over to a remaining node", async () => {
    const db = await freshDatabase();
    const all = await startNodes(db.url, ["a", "b"]);
    const first = await pollUntil(() => leaders(all)[0], { what: "a leader" });
    await first.stop();
    const others = all.filter((node) => node !== first);
    await pollUntil(() => leaders(others).length === 1, { timeoutMs: 5000, what: "take over" });
  });

  test("a leader killed with SIGKILL is replaced by the survivor", async () => {
    const db = await freshDatabase();
    const child = Bun.spawn(
      [
        process.execPath,
        join(import.meta.dir, "../test-utils/cluster-child.ts"),
        db.url,
        "child",
        String(RETRY_SECONDS),
      ],
      { stdout: "pipe", stderr: "inherit" },
    );
    children.push(child);
    const reader = child.stdout.getReader();
    let printed = "";
    while (!printed.includes("leading")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the child ended before leading: ${printed}`);
      printed += new TextDecoder().decode(value);
    }
    const [survivor] = await startNodes(db.url, ["survivor"]);
    const admin = new SQL(db.url, { max: 1 });
    try {
      const childHolder = await pollUntil(() => lockHolder(admin), { what: "the child's lock" });
      expect(survivor?.cluster.isLeader()).toBe(false);

      child.kill("SIGKILL");
      await child.exited;
      await pollUntil(() => survivor?.cluster.isLeader(), {
        timeoutMs: 5000,
        what: "the survivor to lead",
      });
      expect(await lockHolder(admin)).not.toBe(childHolder);
    } finally {
      await admin.close();
    }
  });
});

describe("job scope across nodes", () => {
  test("a cluster-wide job runs on the leader only; a node-local job runs on every node", async () => {
    const db = await freshDatabase();
    const all = await startNodes(db.url, ["a", "b", "c"]);
    const runs = new Map<string, string[]>(all.map((node) => [node.id, []]));
    const stops = all.map((node) => {
      const log = runs.get(node.id) ?? [];
      const room: Room = {
        routes: null,
        jobs: [
          {
            name: "probe.sweep",
            scope: "cluster",
            intervalSeconds: 0.05,
            run: () => void log.push("sweep"),
          },
          {
            name: "probe.takeover",
            scope: "cluster",
            runNow: true,
            pattern: "0 0 1 1 *",
            run: () => void log.push("takeover"),
          },
          {
            name: "probe.flush",
            scope: "node",
            intervalSeconds: 0.05,
            run: () => log.push("flush"),
          },
        ],
        subscriptions: [],
        stop: () => {},
        ports: {},
      };
      return startRooms([room], node);
    });
    const count = (id: string, what: string) =>
      (runs.get(id) ?? []).filter((entry) => entry === what).length;
    const leader = await pollUntil(() => leaders(all)[0], { what: "a leader" });
    await pollUntil(() => all.every((node) => count(node.id, "flush") >= 5), {
      what: "node-local runs everywhere",
    });
    await pollUntil(() => count(leader.id, "sweep") >= 5, { what: "the leader's sweeps" });
    for (const node of all) {
      if (node === leader) continue;
      expect(count(node.id, "sweep")).toBe(0);
      expect(count(node.id, "takeover")).toBe(0);
    }
    // Taking the lead ran the cluster-wide start-up job once, as a single node does at start.
    expect(count(leader.id, "takeover")).toBe(1);
    for (const stop of stops) await stop();
  });
});

describe("the bus across nodes", () => {
  const events = ["endpoint.deleted", "endpoint.updated", "request.captured"] as const;

  test("an event published on one node is heard once on each other node, never echoed", async () => {
    const db = await freshDatabase();
    const [a, b, c] = await startNodes(db.url, ["a", "b", "c"]);
    if (!a || !b || !c) throw new Error("three nodes");
    const heard = [a, b, c].map((node) => recordEvents(node, events));
    const deleted = { endpointId: "ep_1", organizationId: "org_1" };
    a.bus.publish("endpoint.deleted", deleted);
    const line = `endpoint.deleted ${JSON.stringify(deleted)}`;
    await pollUntil(() => heard[1]?.includes(line) && heard[2]?.includes(line), {
      what: "b and c to hear a's event",
    });
    // A marker from b, sent after a's event was committed, arrives after any echo of it would.
    const marker = { endpointId: "ep_2", organizationId: null, slug: "marker" };
    b.bus.publish("endpoint.updated", marker);
    const markerLine = `endpoint.updated ${JSON.stringify(marker)}`;
    await pollUntil(() => heard[0]?.includes(markerLine) && heard[2]?.includes(markerLine), {
      what: "the marker",
    });
    expect(heard[0]).toEqual([line, markerLine]);
    expect(heard[1]).toEqual([line, markerLine]);
    expect(heard[2]).toEqual([line, markerLine]);
  });

  test("after its listening connection is dropped a node hears the others again", async () => {
    const db = await freshDatabase();
    const [a, b] = await startNodes(db.url, ["a", "b"]);
    if (!a || !b) throw new Error("two nodes");
    const heard = recordEvents(b, events);
    const admin = new SQL(db.url, { max: 1 });
    try {
      const dropped = await admin`
        SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE datname = current_database() AND query ILIKE 'LISTEN%'`;
      expect(dropped.length).toBeGreaterThan(0);
    } finally {
      await admin.close();
    }
    // What is sent before b listens again is lost; keep sending until one arrives.
    let sent = 0;
    await pollUntil(
      () => {
        a.bus.publish("endpoint.updated", {
          endpointId: `ep_${sent++}`,
          organizationId: null,
          slug: "s",
        });
        return heard.length > 0;
      },
      { intervalMs: 100, timeoutMs: 10_000, what: "b to hear a again" },
    );
  });

  test("a capture with a body far over NOTIFY's 8000 bytes arrives whole, bytes intact", async () => {
    const db = await freshDatabase();
    const [a, b] = await startNodes(db.url, ["a", "b"]);
    if (!a || !b) throw new Error("two nodes");
    const received: DomainEvents["request.captured"][] = [];
    b.bus.on("request.captured", (event) => void received.push(event));
    const body = crypto.getRandomValues(new Uint8Array(200_000));
    const captured: DomainEvents["request.captured"] = {
      request: {
        id: "req_1",
        endpointId: "ep_1",
        method: "POST",
        path: "/hook",
        queryString: "a=1",
        headers: { "content-type": "application/octet-stream", "x-note": "ünïcode ✓" },
        rawHeaders: [["content-type", "application/octet-stream"]],
        body,
        contentType: "application/octet-stream",
        size: body.length,
        remoteIp: "127.0.0.1",
        status: 200,
        createdAt: "2026-01-01T00:00:00.000Z",
      },
      endpoint: { id: "ep_1", organizationId: null, slug: "hook", forwardUrl: null },
    };
    a.bus.publish("request.captured", captured);
    a.bus.publish("request.captured", {
      ...captured,
      request: { ...captured.request, id: "req_2" },
    });
    await pollUntil(() => received.length === 2, { what: "both captures on b" });
    expect(received.map((event) => event.request.id)).toEqual(["req_1", "req_2"]);
    expect(received[0]?.request.body).toBeInstanceOf(Uint8Array);
    expect(received[0]).toEqual(captured);
  });
});
