import { describe, expect, test } from "bun:test";
import { createApp } from "./app.ts";
import type { DomainEvents } from "./events.ts";
import { type Room, startRooms, subscription } from "./room.ts";
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
