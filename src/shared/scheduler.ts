import { Cron } from "croner";
import type { Logger } from "./logger.ts";

export interface JobOptions {
  /** Also run once right away (e.g. a retention sweep at start). */
  runNow?: boolean;
}

/**
 * Every timer of Weir goes through this (retries, sweeps, probes, checkpoints). Jobs never overlap
 * themselves, and a failing job is logged, never fatal.
 */
export interface Scheduler {
  /** Runs `task` on a cron `pattern` (seconds field allowed: "*\/5 * * * * *"). */
  every(name: string, pattern: string, task: () => unknown, options?: JobOptions): void;
  /** Names of the registered jobs. */
  jobs(): string[];
  /** Stops every job; used at shutdown. */
  stop(): void;
}

/** The croner-backed scheduler. */
export function createScheduler(logger: Logger): Scheduler {
  const crons = new Map<string, Cron>();
  const guarded = (name: string, task: () => unknown) => async () => {
    try {
      await task();
    } catch (error) {
      logger.error("scheduled job failed", { job: name, error });
    }
  };
  return {
    every(name, pattern, task, options = {}) {
      if (crons.has(name)) throw new Error(`job ${name} is already scheduled`);
      const run = guarded(name, task);
      // Unnamed on purpose: croner keeps named jobs in a process-wide registry, and two apps may share a process.
      crons.set(name, new Cron(pattern, { protect: true }, run));
      if (options.runNow) void run();
    },
    jobs: () => [...crons.keys()],
    stop() {
      for (const cron of crons.values()) cron.stop();
      crons.clear();
    },
  };
}
