import type { Logger } from "../shared/logger.ts";
import type { Scheduler } from "../shared/scheduler.ts";
import { createLeadershipListeners } from "./cluster.model.ts";
import type { ClusterStore, LeaderSession } from "./cluster.store.ts";

/** The scheduler's job that tries for the lead while this node follows. */
export const LEADERSHIP_JOB = "cluster.leadership";
/** How often a follower tries for the lead: a dead leader is replaced within this many seconds. */
export const DEFAULT_LEADERSHIP_RETRY_SECONDS = 5;

export interface LeadershipDeps {
  store: Pick<ClusterStore, "tryLead">;
  scheduler: Scheduler;
  logger: Logger;
  retrySeconds: number;
}

/**
 * One node leads while its session holds the lock; the others try again every `retrySeconds`.
 * The leader steps down the moment its session ends: once PostgreSQL dropped the session another
 * node may already lead, so not a single further cluster-wide run may start here.
 */
export function createLeadership(deps: LeadershipDeps) {
  const logger = deps.logger.child({ scope: "cluster" });
  const listeners = createLeadershipListeners((error) =>
    logger.error("leadership listener failed", { error }),
  );
  let session: LeaderSession | null = null;
  let running = false;

  const stepDown = (reason: string, expected = false) => {
    if (!session) return;
    session = null;
    (expected ? logger.info : logger.warn)("stepped down as cluster leader", { reason });
    listeners.tell(false);
  };
  const attempt = async () => {
    if (!running || session) return;
    let won: LeaderSession | null;
    try {
      won = await deps.store.tryLead();
    } catch (error) {
      logger.warn("could not try for the cluster lead", { error });
      return;
    }
    if (!won) return;
    if (!running) {
      await won.end();
      return;
    }
    session = won;
    void won.ended.then(() => {
      if (session === won) stepDown("its database session ended");
    });
    logger.info("leading the cluster", {});
    listeners.tell(true);
  };

  return {
    isLeader: () => session !== null,
    onChange: listeners.add,
    /** Tries at once (or as the scheduler starts), then every `retrySeconds`. */
    start(): void {
      if (running) return;
      running = true;
      deps.scheduler.interval(LEADERSHIP_JOB, deps.retrySeconds, attempt, { runNow: true });
    },
    /** Stops trying and ends the session, so another node takes over at its next try. */
    async stop(): Promise<void> {
      running = false;
      deps.scheduler.remove(LEADERSHIP_JOB);
      const held = session;
      stepDown("this node is stopping", true);
      await held?.end();
    },
  };
}
