import { checkJobName, type Scheduler } from "../shared/scheduler.ts";

/** A scheduler whose jobs run only when a test says so: `run(name)` awaits one job. */
export interface ManualScheduler extends Scheduler {
  run(name: string): Promise<void>;
  /** Each job's timing: its cron pattern, `<n>s` for an interval, the ISO time of a one-shot. */
  patterns(): Record<string, string>;
  started(): boolean;
}

/** Records jobs instead of timing them, so time-driven work is triggered exactly. */
export function createManualScheduler(): ManualScheduler {
  const jobs = new Map<string, { timing: string; task: () => unknown; oneShot: boolean }>();
  let started = false;
  const add = (name: string, timing: string, task: () => unknown, oneShot = false) => {
    checkJobName(name);
    if (jobs.has(name)) throw new Error(`job ${name} is already scheduled`);
    jobs.set(name, { timing, task, oneShot });
  };
  return {
    every: (name, pattern, task) => add(name, pattern, task),
    interval: (name, seconds, task) => add(name, `${seconds}s`, task),
    once: (name, at, task) => add(name, new Date(at).toISOString(), task, true),
    remove: (name) => jobs.delete(name),
    has: (name) => jobs.has(name),
    jobs: () => [...jobs.keys()],
    patterns: () => Object.fromEntries([...jobs].map(([name, job]) => [name, job.timing])),
    async run(name) {
      const job = jobs.get(name);
      if (!job) throw new Error(`no job named ${name}`);
      if (job.oneShot) jobs.delete(name);
      await job.task();
    },
    start: () => {
      started = true;
    },
    started: () => started,
    stop: () => {
      started = false;
      jobs.clear();
    },
  };
}
