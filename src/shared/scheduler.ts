import { Cron } from "croner";
import { createSystemClock, type TimerClock } from "./clock.ts";
import type { Logger } from "./logger.ts";

export interface JobOptions {
  /** Also run once at start (or at once, when added after start), e.g. a retention sweep. */
  runNow?: boolean;
}

type Task = () => unknown;

/**
 * Every timer of Weir goes through this (retries, sweeps, probes, checkpoints, queue wake-ups).
 * Nothing fires before `start()`. Jobs never overlap themselves (a tick that comes while the
 * previous run is still going is skipped), and a failing job is logged, never fatal. Names are
 * `room.job`, with an optional `:key` for one job per thing (`monitors.check:<id>`).
 */
export interface Scheduler {
  /** Runs `task` on a cron `pattern` (seconds field allowed: "*\/5 * * * * *"). */
  every(name: string, pattern: string, task: Task, options?: JobOptions): void;
  /** Runs `task` every `seconds` (fractions allowed), counted on the clock from when it is armed. */
  interval(name: string, seconds: number, task: Task, options?: JobOptions): void;
  /** Runs `task` once when the clock reads `at` (ms); the job is gone once it has fired. */
  once(name: string, at: number, task: Task): void;
  /** Removes a job; a run in progress finishes but is not followed by another. */
  remove(name: string): boolean;
  has(name: string): boolean;
  /** Names of the registered jobs. */
  jobs(): string[];
  /** Arms every job (and those added later); runs the `runNow` ones. */
  start(): void;
  /** Disarms and forgets every job; used at shutdown. */
  stop(): void;
}

/** `room.job` or `room.job:key`: one grep finds a room's jobs. */
const JOB_NAME = /^[a-z][a-z0-9-]*\.[a-z0-9][a-z0-9-]*(:[\w.:-]+)?$/;

/** Throws unless `name` is a `room.job` name. */
export function checkJobName(name: string): void {
  if (!JOB_NAME.test(name)) throw new Error(`job name ${name} is not "room.job" or "room.job:key"`);
}

interface Job {
  name: string;
  /** The clock reading of the next tick after `from`, or null when there is none. */
  next(from: number): number | null;
  task: Task;
  runNow: boolean;
  oneShot: boolean;
  running: boolean;
  cancel?: () => void;
}

/**
 * The scheduler on an injected clock: intervals and one-shots are exact readings of that clock,
 * cron patterns are read by croner (the pattern engine) from the same clock. With a fake clock,
 * advancing it fires exactly the jobs that fell due.
 */
export function createScheduler(
  logger: Logger,
  clock: TimerClock = createSystemClock(),
): Scheduler {
  const jobs = new Map<string, Job>();
  let started = false;

  const failed = (job: Job, error: unknown) =>
    logger.error("scheduled job failed", { job: job.name, error });
  // A synchronous task finishes within its tick, so a fake clock moved past several ticks runs it
  // at each of them; an asynchronous one holds its job until it settles.
  const run = (job: Job) => {
    if (job.running) {
      logger.debug("scheduled job still running; tick skipped", { job: job.name });
      return;
    }
    let result: unknown;
    try {
      result = job.task();
    } catch (error) {
      return failed(job, error);
    }
    if (!(result instanceof Promise)) return;
    job.running = true;
    result.then(
      () => {
        job.running = false;
      },
      (error) => {
        job.running = false;
        failed(job, error);
      },
    );
  };
  const arm = (job: Job, from: number) => {
    const at = job.next(from);
    if (at === null) return;
    job.cancel = clock.timer(at, () => {
      if (jobs.get(job.name) !== job) return;
      if (job.oneShot) jobs.delete(job.name);
      else arm(job, Math.max(at, clock.now()));
      run(job);
    });
  };
  const activate = (job: Job) => {
    arm(job, clock.now());
    if (job.runNow) run(job);
  };
  const add = (job: Job) => {
    checkJobName(job.name);
    if (jobs.has(job.name)) throw new Error(`job ${job.name} is already scheduled`);
    jobs.set(job.name, job);
    if (started) activate(job);
  };
  const base = { running: false, oneShot: false, runNow: false };

  return {
    every(name, pattern, task, options = {}) {
      // Paused and without a function: croner only computes the times; the clock fires them.
      const cron = new Cron(pattern, { paused: true });
      const next = (from: number) => cron.nextRun(new Date(from))?.getTime() ?? null;
      add({ ...base, name, next, task, runNow: options.runNow === true });
    },
    interval(name, seconds, task, options = {}) {
      if (!(seconds > 0) || !Number.isFinite(seconds)) {
        throw new Error(`job ${name}: interval must be a positive number of seconds`);
      }
      const periodMs = seconds * 1000;
      add({
        ...base,
        name,
        next: (from) => from + periodMs,
        task,
        runNow: options.runNow === true,
      });
    },
    once(name, at, task) {
      add({ ...base, name, next: () => at, task, oneShot: true });
    },
    remove(name) {
      const job = jobs.get(name);
      job?.cancel?.();
      return jobs.delete(name);
    },
    has: (name) => jobs.has(name),
    jobs: () => [...jobs.keys()],
    start() {
      if (started) return;
      started = true;
      for (const job of [...jobs.values()]) activate(job);
    },
    stop() {
      started = false;
      for (const job of jobs.values()) job.cancel?.();
      jobs.clear();
    },
  };
}
