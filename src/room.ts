import type { AnyElysia } from "elysia";
import type { AppBus, DomainEvents } from "./events.ts";
import type { DirectRoutes } from "./http/http.direct-routes.ts";
import type { Logger } from "./shared/logger.ts";
import type { Scheduler } from "./shared/scheduler.ts";

/**
 * A timer a room needs, described as data: the room says what, `startRooms` says when. Building a
 * room therefore starts nothing, and a test can list a room's jobs without running any.
 */
export type RoomJob = {
  /** `room.job`, unique in the app; tests trigger a job by this name. */
  name: string;
  run: () => unknown;
  /** Also runs once as the app starts (e.g. a retention sweep). */
  runNow?: boolean;
} & (
  | { /** A cron pattern (a seconds field is allowed: "*\/5 * * * * *"). */ pattern: string }
  | { /** A fixed period, e.g. a monitor's 45 s (not a cron pattern). */ intervalSeconds: number }
);

/** One bus subscription of a room, as data; `startRooms` subscribes it. */
export type RoomSubscription = {
  [K in keyof DomainEvents]: {
    event: K;
    handler: (payload: DomainEvents[K]) => void | Promise<void>;
  };
}[keyof DomainEvents];

/** A typed `RoomSubscription` (a plain object literal would lose the payload's type). */
export function subscription<K extends keyof DomainEvents>(
  event: K,
  handler: (payload: DomainEvents[K]) => void | Promise<void>,
): RoomSubscription {
  return { event, handler } as RoomSubscription;
}

/**
 * The one shape every room is built to: `createXRoom(deps, ports)` returns it. `deps` is the
 * narrow slice of AppDeps the room uses; `ports` are the functions other rooms lend it. What the
 * room lends in turn is in `ports` of the result.
 */
export interface Room<Ports extends object = Record<string, never>> {
  /** The room's HTTP surface, mounted by createApp (null: the room has none). */
  routes: AnyElysia | null;
  /** Hot paths Bun.serve answers ahead of the Elysia app (captures); most rooms have none. */
  directRoutes?: DirectRoutes;
  jobs: RoomJob[];
  subscriptions: RoomSubscription[];
  /** Releases what the room holds; called after the server stopped taking requests. */
  stop(): void | Promise<void>;
  /** Functions this room lends to rooms built after it. */
  ports: Ports;
}

/** What starting and stopping rooms needs of the app's deps. */
export interface RoomsRuntime {
  bus: AppBus;
  scheduler: Scheduler;
  logger: Logger;
}

/**
 * The one start path: registers every room's jobs and subscriptions, in room order (the scheduler
 * arms them when it starts). Returns the one stop path: unsubscribes, removes the jobs, then
 * stops the rooms in reverse order (a room stops before the rooms it depends on), logging a
 * failing stop without skipping the others.
 */
export function startRooms(
  rooms: readonly Room<object>[],
  runtime: RoomsRuntime,
): () => Promise<void> {
  const unsubscribes: (() => void)[] = [];
  for (const room of rooms) {
    for (const job of room.jobs) {
      const options = { runNow: job.runNow };
      if ("pattern" in job) runtime.scheduler.every(job.name, job.pattern, job.run, options);
      else runtime.scheduler.interval(job.name, job.intervalSeconds, job.run, options);
    }
    for (const { event, handler } of room.subscriptions) {
      unsubscribes.push(runtime.bus.on(event, handler as (payload: unknown) => void));
    }
  }
  return async () => {
    for (const unsubscribe of unsubscribes) unsubscribe();
    for (const room of rooms) for (const job of room.jobs) runtime.scheduler.remove(job.name);
    for (const room of [...rooms].reverse()) {
      try {
        await room.stop();
      } catch (error) {
        runtime.logger.error("room stop failed", { error });
      }
    }
  };
}
