import type { AnyElysia } from "elysia";
import { type Cluster, createSingleNodeCluster } from "./cluster/cluster.model.ts";
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
  /**
   * Also runs once as the app starts (e.g. a retention sweep); a cluster-wide job runs once when
   * a node takes the lead instead.
   */
  runNow?: boolean;
  /**
   * Where the job runs when several nodes share one database. `node` (the default): on every
   * node, for work on what the node holds (its memory, its disk, its sockets). `cluster`: on the
   * leader only, for work on the shared data (sweeps, scans, schedules), which it must still
   * tolerate running twice around a change of leader. A forgotten scope thus duplicates shared
   * work instead of silently leaving a node's own state unflushed.
   */
  scope?: JobScope;
} & (
  | { /** A cron pattern (a seconds field is allowed: "*\/5 * * * * *"). */ pattern: string }
  | { /** A fixed period, e.g. a monitor's 45 s (not a cron pattern). */ intervalSeconds: number }
);

/** Where a job runs in a cluster: on every node, or on the leader only. */
export type JobScope = "node" | "cluster";

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
  /** Leadership for cluster-wide jobs; without it the process is a single node, always leader. */
  cluster?: Cluster;
}

const SINGLE_NODE = createSingleNodeCluster();

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
  const cluster = runtime.cluster ?? SINGLE_NODE;
  const clusterJobs: RoomJob[] = [];
  for (const room of rooms) {
    for (const job of room.jobs) {
      const scoped = job.scope === "cluster" ? leaderOnly(job, cluster) : job;
      if (job.scope === "cluster") clusterJobs.push(scoped);
      const options = { runNow: job.runNow };
      if ("pattern" in job) runtime.scheduler.every(job.name, job.pattern, scoped.run, options);
      else runtime.scheduler.interval(job.name, job.intervalSeconds, scoped.run, options);
    }
    for (const { event, handler } of room.subscriptions) {
      unsubscribes.push(runtime.bus.on(event, handler as (payload: unknown) => void));
    }
  }
  unsubscribes.push(
    cluster.onLeadershipChange((leader) => {
      if (leader) runOnTakeover(clusterJobs, runtime.scheduler);
    }),
  );
  return async () => {
    for (const unsubscribe of unsubscribes) unsubscribe();
    for (const room of rooms) for (const job of room.jobs) runtime.scheduler.remove(job.name);
    for (const job of clusterJobs) runtime.scheduler.remove(takeoverName(job));
    for (const room of [...rooms].reverse()) {
      try {
        await room.stop();
      } catch (error) {
        runtime.logger.error("room stop failed", { error });
      }
    }
  };
}

/** The job's run, skipped on a node that does not lead (a single node always leads). */
function leaderOnly(job: RoomJob, cluster: Cluster): RoomJob {
  return { ...job, run: () => (cluster.isLeader() ? job.run() : undefined) };
}

const takeoverName = (job: RoomJob) => `${job.name}:takeover`;

/**
 * A new leader runs the cluster-wide `runNow` jobs at once, as a single node does at start: the
 * start-up run of each node found it not leading, and a dead leader's sweeps are now owed here.
 */
function runOnTakeover(jobs: readonly RoomJob[], scheduler: Scheduler): void {
  for (const job of jobs) {
    if (!job.runNow || scheduler.has(takeoverName(job))) continue;
    // Any past reading fires at once.
    scheduler.once(takeoverName(job), 0, job.run);
  }
}
