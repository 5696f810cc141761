import { createCluster } from "../cluster/cluster.node.ts";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import type { DeliveryRecord, Prepared } from "../delivery/delivery.ports.ts";
import { createDeliveryRoom, type DeliveryRoomPorts } from "../delivery/delivery.room.ts";
import { createConfiguredSender } from "../deps.ts";
import type { AppBus, DomainEvents } from "../events.ts";
import { startRooms } from "../room.ts";
import { createBus } from "../shared/bus.ts";
import { createSystemClock } from "../shared/clock.ts";
import type { Config } from "../shared/config.table.ts";
import { loadConfig } from "../shared/config.ts";
import { createIds } from "../shared/ids.ts";
import { createLogger } from "../shared/logger.ts";
import { createScheduler, type Scheduler } from "../shared/scheduler.ts";

/** One Weir node's outbox on a shared PostgreSQL database, with nothing else of the app. */
export interface DeliveryNode {
  postgres: PostgresDb;
  ports: DeliveryRoomPorts;
  bus: AppBus;
  stop(): Promise<void>;
}

export interface DeliveryNodeOptions {
  /** Joins the other clustered nodes (bridged events) as `weir serve` on PostgreSQL does. */
  cluster?: boolean;
  /** Never polls for rows: it claims only when woken, here or by another node. */
  withoutPoll?: boolean;
  /** Registers more on the room's ports (observers) before it starts, as the app's rooms do. */
  beforeStart?: (ports: DeliveryRoomPorts) => void;
}

/** The scheduler without the outbox's poll: other nodes' rows reach it only by their wake. */
function withoutPoll(scheduler: Scheduler): Scheduler {
  return {
    ...scheduler,
    interval: (name, seconds, task, options) => {
      if (name !== "delivery.poll") scheduler.interval(name, seconds, task, options);
    },
  };
}

/**
 * Starts the delivery room of one node on `url`: its "event" kind posts `{subject}` to
 * `<sinkUrl>/<subject id>`, signed with `secret`. Several of these share one outbox as nodes do.
 */
export async function startDeliveryNode(
  url: string,
  sinkUrl: string,
  secret: string,
  config: Partial<Config> = {},
  options: DeliveryNodeOptions = {},
): Promise<DeliveryNode> {
  const base = loadConfig({ env: {}, flags: {} }).config;
  const merged: Config = { ...base, ...config };
  const logger = createLogger({ level: "error", write: () => {} });
  const clock = createSystemClock();
  const clockScheduler = createScheduler(logger, clock);
  const scheduler = options.withoutPoll ? withoutPoll(clockScheduler) : clockScheduler;
  const bus = createBus<DomainEvents>(logger);
  const postgres = await openPostgres(url, { poolSize: 4 });
  const room = createDeliveryRoom({
    config: merged,
    clock,
    ids: createIds(),
    logger,
    bus,
    scheduler,
    outbound: createConfiguredSender(merged),
    postgres,
  });
  room.ports.registerKind("event", {
    prepare: async (delivery: DeliveryRecord): Promise<Prepared> => ({
      send: {
        url: `${sinkUrl}/${delivery.subjectId}`,
        method: "POST",
        headers: [["content-type", "application/json"]],
        body: JSON.stringify({ subject: delivery.subjectId }),
        signingSecrets: [secret],
      },
    }),
  });
  options.beforeStart?.(room.ports);
  const cluster = options.cluster
    ? createCluster({ sql: postgres.sql, bus, scheduler, logger })
    : null;
  await cluster?.start();
  const stopRooms = startRooms([room], { scheduler, bus, logger });
  scheduler.start();
  bus.publish("server.started", { baseUrl: "", port: 0 });
  return {
    postgres,
    ports: room.ports,
    bus,
    async stop() {
      scheduler.stop();
      await stopRooms();
      await cluster?.stop();
      await postgres.close();
    },
  };
}
