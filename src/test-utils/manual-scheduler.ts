import type { Scheduler } from "../shared/scheduler.ts";

/** A scheduler whose jobs run only when a test says so: `run(name)` awaits one job. */
export interface ManualScheduler extends Scheduler {
  run(name: string): Promise<void>;
  patterns(): Record<string, string>;
}

/** Records jobs instead of timing them, so time-driven work is triggered exactly. */
export function createManualScheduler(): ManualScheduler {
  const jobs = new Map<string, { pattern: string; task: () => unknown }>();
  return {
    every(name, pattern, task) {
      if (jobs.has(name)) throw new Error(`job ${name} is already scheduled`);
      jobs.set(name, { pattern, task });
    },
    jobs: () => [...jobs.keys()],
    patterns: () => Object.fromEntries([...jobs].map(([name, job]) => [name, job.pattern])),
    async run(name) {
      const job = jobs.get(name);
      if (!job) throw new Error(`no job named ${name}`);
      await job.task();
    },
    stop: () => jobs.clear(),
  };
}
