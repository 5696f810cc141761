import { describe, expect, test } from "bun:test";
import { createApp } from "./app.ts";
import { type Cluster, createLeadershipListeners } from "./cluster/cluster.model.ts";
import type { DomainEvents } from "./events.ts";
import { type Room, type RoomJob, startRooms, subscription } from "./room.ts";
import { createBus } from "./shared/bus.ts";
import { createLogger } from "./shared/logger.ts";
import { createManualScheduler } from "./test-utils/manual-scheduler.ts";
import { startTestServer } from "./test-utils/test-server.ts";

const quietLogger = () => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: "debug", write: (line) => lines.push(JSON.parse(line)) });
  return { logger, lines };
};

/** A room that records what happens to it in `log`. */
function recordingRoom(name: string, log: string[], stop?: () => void): Room {
  return {
    routes: null,
    jobs: [
      { name: `${name}.tick`, pattern: "* * * * * *", run: () => log.push(`${name} tick`) },
      { name: `${name}.every`, intervalSeconds: 45, run: () => log.push(`${name} every`) },
    ],
    subscriptions: [
      subscription("endpoint.deleted", ({ endpointId }) => {
        log.push(`${name} heard ${endpointId}`);
      }),
    ],
    stop: stop ?? (() => void log.push(`${name} stop`)),
    ports: {},
  };
}

describe("startRooms", () => {
  test("registers jobs and subscriptions in room order; the stop path undoes them in reverse", async () => {
    const { logger } = quietLogger();
    const bus = createBus<DomainEvents>(logger);
    const scheduler = createManualScheduler();
    const log: string[] = [];
    const rooms = [recordingRoom("a", log), recordingRoom("b", log)];
    bus.publish("endpoint.deleted", { endpointId: "before", organizationId: null });
    expect(scheduler.jobs()).toEqual([]);

    const stop = startRooms(rooms, { bus, scheduler, logger });
    expect(scheduler.patterns()).toEqual({
      "a.tick": "* * * * * *",
      "a.every": "45s",
      "b.tick": "* * * * * *",
      "b.every": "45s",
    });
    bus.publish("endpoint.deleted", { endpointId: "e1", organizationId: null });
    await scheduler.run("b.tick");
    expect(log).toEqual(["a heard e1", "b heard e1", "b tick"]);

    await stop();
    bus.publish("endpoint.deleted", { endpointId: "after", organizationId: null });
    expect(scheduler.jobs()).toEqual([]);
    expect(log.slice(3)).toEqual(["b stop", "a stop"]);
  });

  test("a room whose stop throws is logged and the rooms before it still stop", async () => {
    const { logger, lines } = quietLogger();
    const bus = createBus<DomainEvents>(logger);
    const log: string[] = [];
    const failing = recordingRoom("b", log, () => {
      throw new Error("boom");
    });
    const stop = startRooms([recordingRoom("a", log), failing], {
      bus,
      scheduler: createManualScheduler(),
      logger,
    });
    await stop();
    expect(log).toEqual(["a stop"]);
    expect(lines.some((line) => line.msg === "room stop failed")).toBe(true);
  });
});

/** A room with one job of each scope, both also run at start; runs are logged as `job@node`. */
function scopedRoom(log: string[], node: string): Room {
  const job = (name: string, scope: RoomJob["scope"]): RoomJob => ({
    name,
    scope,
    runNow: true,
    intervalSeconds: 60,
    run: () => void log.push(`${name}@${node}`),
  });
  return {
    routes: null,
    jobs: [
      job("probe.sweep", "cluster"),
      job("probe.flush", "node"),
      job("probe.cache", undefined),
    ],
    subscriptions: [],
    stop: () => {},
    ports: {},
  };
}

/** A cluster whose leadership the test hands out. */
function handedCluster() {
  let leader = false;
  const listeners = createLeadershipListeners((error) => {
    throw error;
  });
  const cluster: Cluster = {
    nodeId: "n1",
    isLeader: () => leader,
    onLeadershipChange: listeners.add,
    start: async () => {},
    stop: async () => {},
  };
  return {
    cluster,
    lead(now: boolean) {
      leader = now;
      listeners.tell(now);
    },
  };
}

describe("job scope", () => {
  test("a single node (SQLite) runs every job, cluster-wide or not", async () => {
    const { logger } = quietLogger();
    const scheduler = createManualScheduler();
    const log: string[] = [];
    const stop = startRooms([scopedRoom(log, "single")], {
      bus: createBus<DomainEvents>(logger),
      scheduler,
      logger,
    });
    for (const name of ["probe.sweep", "probe.flush", "probe.cache"]) await scheduler.run(name);
    expect(log).toEqual(["probe.sweep@single", "probe.flush@single", "probe.cache@single"]);
    await stop();
  });

  test("a node that does not lead skips cluster-wide runs; taking the lead runs the start-up ones", async () => {
    const { logger } = quietLogger();
    const scheduler = createManualScheduler();
    const log: string[] = [];
    const { cluster, lead } = handedCluster();
    const stop = startRooms([scopedRoom(log, "n1")], {
      bus: createBus<DomainEvents>(logger),
      scheduler,
      logger,
      cluster,
    });
    for (const name of ["probe.sweep", "probe.flush", "probe.cache"]) await scheduler.run(name);
    // Without a scope a job runs on every node: it may hold what only this node has.
    expect(log).toEqual(["probe.flush@n1", "probe.cache@n1"]);

    lead(true);
    expect(scheduler.jobs()).toContain("probe.sweep:takeover");
    await scheduler.run("probe.sweep:takeover");
    await scheduler.run("probe.sweep");
    expect(log.slice(2)).toEqual(["probe.sweep@n1", "probe.sweep@n1"]);

    lead(false);
    await scheduler.run("probe.sweep");
    expect(log).toHaveLength(4);
    await stop();
    expect(scheduler.jobs()).toEqual([]);
  });
});

describe("createApp", () => {
  test("building the app starts nothing; start() registers every room's jobs", async () => {
    const scheduler = createManualScheduler();
    const server = await startTestServer({ scheduler });
    try {
      const jobs = scheduler.jobs().sort();
      expect(jobs).toEqual([
        "actions.recover",
        "alerts.api-key-expiring",
        "alerts.firings-retention",
        "alerts.open-for-days",
        "auth.api-key-usage-flush",
        "capture.checkpoint",
        "capture.disk-sample",
        "capture.drain",
        "capture.refusals",
        "capture.search-index",
        "capture.search-merge",
        "capture.summary",
        "dedup.sweep",
        "delivery.leases",
        "delivery.poll",
        "issues.closed-retention",
        "monitors.leases",
        "monitors.poll",
        "monitors.retention",
        "realtime.idle-sockets",
        "realtime.rights-recheck",
        "retention.sweep",
        "routing.events-retention",
        "routing.health-retention",
        "routing.ingest-summary",
        "status-pages.mails-retention",
      ]);
      // Where each job runs among several nodes: every job says so, none relies on the default.
      expect(Object.fromEntries(server.weir.jobs.map((job) => [job.name, job.scope]))).toEqual({
        "auth.api-key-usage-flush": "node",
        "capture.checkpoint": "node",
        "capture.search-index": "node",
        "retention.sweep": "cluster",
        "capture.drain": "cluster",
        "capture.search-merge": "cluster",
        "capture.disk-sample": "node",
        "capture.refusals": "node",
        "capture.summary": "node",
        "realtime.idle-sockets": "node",
        "realtime.rights-recheck": "node",
        "actions.recover": "cluster",
        "dedup.sweep": "cluster",
        "routing.events-retention": "cluster",
        "routing.health-retention": "cluster",
        "routing.ingest-summary": "node",
        "issues.closed-retention": "cluster",
        "alerts.open-for-days": "cluster",
        "alerts.firings-retention": "cluster",
        "alerts.api-key-expiring": "cluster",
        "monitors.retention": "cluster",
        "status-pages.mails-retention": "cluster",
      });
      // A second app on the same deps registers nothing until it is started itself.
      const second = createApp(server.deps);
      expect(second.app.routes.length).toBeGreaterThan(0);
      expect(scheduler.jobs().sort()).toEqual(jobs);
    } finally {
      await server.stop();
    }
    expect(scheduler.jobs()).toEqual([]);
  });
});
