import { describe, expect, test } from "bun:test";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { createManualScheduler } from "../test-utils/manual-scheduler.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { createSystemClock } from "./clock.ts";
import { createLogger } from "./logger.ts";
import { createScheduler, type Scheduler } from "./scheduler.ts";

const START = Date.UTC(2026, 0, 1);

function world() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: "error", write: (l) => lines.push(JSON.parse(l)) });
  const clock = createFakeClock(START);
  const scheduler = createScheduler(logger, clock);
  /** Seconds after START at which each job ran. */
  const runs: Array<[string, number]> = [];
  const task = (name: string) => () => {
    runs.push([name, (clock.now() - START) / 1000]);
  };
  return { clock, scheduler, runs, task, lines };
}

type Setup = (s: Scheduler, task: (name: string) => () => void) => void;

describe("scheduler on a fake clock: what runs when the clock moves", () => {
  const cases: Array<{
    what: string;
    setup: Setup;
    advance: number[];
    runs: Array<[string, number]>;
  }> = [
    {
      what: "a fixed interval in seconds (not a cron pattern)",
      setup: (s, t) => s.interval("monitors.check:a", 45, t("a")),
      advance: [150_000],
      runs: [
        ["a", 45],
        ["a", 90],
        ["a", 135],
      ],
    },
    {
      what: "fractional seconds",
      setup: (s, t) => s.interval("delivery.poll", 0.25, t("poll")),
      advance: [600],
      runs: [
        ["poll", 0.25],
        ["poll", 0.5],
      ],
    },
    {
      what: "runNow runs at start, then on the interval",
      setup: (s, t) => s.interval("capture.sweep", 10, t("sweep"), { runNow: true }),
      advance: [10_000],
      runs: [
        ["sweep", 0],
        ["sweep", 10],
      ],
    },
    {
      what: "a one-shot fires once at its reading",
      setup: (s, t) => s.once("delivery.wake", START + 1500, t("wake")),
      advance: [1499, 1, 10_000],
      runs: [["wake", 1.5]],
    },
    {
      what: "a cron pattern is read from the same clock",
      setup: (s, t) => s.every("capture.checkpoint", "*/10 * * * * *", t("cp")),
      advance: [25_000],
      runs: [
        ["cp", 10],
        ["cp", 20],
      ],
    },
    {
      what: "jobs interleave in time order",
      setup: (s, t) => {
        s.interval("a.x", 3, t("x"));
        s.interval("b.y", 2, t("y"));
        s.once("c.z", START + 5000, t("z"));
      },
      advance: [6000],
      runs: [
        ["y", 2],
        ["x", 3],
        ["y", 4],
        ["z", 5],
        ["x", 6],
        ["y", 6],
      ],
    },
  ];
  for (const c of cases) {
    test(c.what, () => {
      const w = world();
      c.setup(w.scheduler, w.task);
      w.scheduler.start();
      for (const ms of c.advance) w.clock.advance(ms);
      expect(w.runs).toEqual(c.runs);
      w.scheduler.stop();
      expect(w.clock.pendingTimers()).toBe(0);
    });
  }
});

describe("scheduler lifecycle", () => {
  test("nothing fires before start; the interval counts from start", () => {
    const w = world();
    w.scheduler.interval("a.tick", 1, w.task("tick"), { runNow: true });
    w.scheduler.every("a.cron", "* * * * * *", w.task("cron"));
    w.clock.advance(5000);
    expect(w.runs).toEqual([]);
    w.scheduler.start();
    w.clock.advance(1000);
    expect(w.runs).toEqual([
      ["tick", 5],
      ["tick", 6],
      ["cron", 6],
    ]);
  });

  test("jobs are added and removed at run time", () => {
    const w = world();
    w.scheduler.start();
    w.scheduler.interval("monitors.check:1", 10, w.task("one"));
    w.clock.advance(10_000);
    w.scheduler.interval("monitors.check:2", 10, w.task("two"));
    expect(w.scheduler.remove("monitors.check:1")).toBe(true);
    expect(w.scheduler.remove("monitors.check:1")).toBe(false);
    w.clock.advance(20_000);
    expect(w.runs).toEqual([
      ["one", 10],
      ["two", 20],
      ["two", 30],
    ]);
    expect(w.scheduler.jobs()).toEqual(["monitors.check:2"]);
  });

  test("a one-shot is gone once fired, so its name can be used again", () => {
    const w = world();
    w.scheduler.start();
    w.scheduler.once("delivery.wake", START + 1000, w.task("first"));
    w.clock.advance(1000);
    expect(w.scheduler.has("delivery.wake")).toBe(false);
    w.scheduler.once("delivery.wake", START + 1500, w.task("second"));
    w.clock.advance(1000);
    expect(w.runs).toEqual([
      ["first", 1],
      ["second", 1.5],
    ]);
  });

  test("a run still in progress skips the ticks that come meanwhile", async () => {
    const w = world();
    let release = () => {};
    let started = 0;
    w.scheduler.interval("a.slow", 1, () => {
      started += 1;
      return new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    w.scheduler.start();
    w.clock.advance(3000);
    expect(started).toBe(1);
    release();
    await Promise.resolve();
    await Promise.resolve();
    w.clock.advance(1000);
    expect(started).toBe(2);
  });

  test("a failing job is logged and keeps its schedule", () => {
    const w = world();
    w.scheduler.interval("a.fails", 1, () => {
      throw new Error("boom");
    });
    w.scheduler.start();
    w.clock.advance(2000);
    expect(w.lines.map((l) => [l.msg, l.job])).toEqual([
      ["scheduled job failed", "a.fails"],
      ["scheduled job failed", "a.fails"],
    ]);
  });

  test("stop disarms everything", () => {
    const w = world();
    w.scheduler.interval("a.tick", 1, w.task("tick"));
    w.scheduler.start();
    w.scheduler.stop();
    w.clock.advance(5000);
    expect(w.runs).toEqual([]);
    expect(w.scheduler.jobs()).toEqual([]);
  });
});

describe("scheduler rules", () => {
  const bad: Array<[string, () => void]> = [
    ["a name without a room", () => createScheduler(silent()).interval("tick", 1, () => {})],
    [
      "an upper-case name",
      () => createScheduler(silent()).every("Auth.Flush", "* * * * *", () => {}),
    ],
    ["a zero interval", () => createScheduler(silent()).interval("a.b", 0, () => {})],
    ["a NaN interval", () => createScheduler(silent()).interval("a.b", Number.NaN, () => {})],
    ["a bad cron pattern", () => createScheduler(silent()).every("a.b", "not cron", () => {})],
    [
      "two jobs with one name",
      () => {
        const s = createScheduler(silent());
        s.interval("a.b", 1, () => {});
        s.once("a.b", 0, () => {});
      },
    ],
  ];
  for (const [what, register] of bad) {
    test(`refuses ${what}`, () => {
      expect(register).toThrow();
    });
  }

  test("accepts room.job and room.job:key", () => {
    const s = createScheduler(silent());
    s.interval("monitors.check:0192-abc", 45, () => {});
    s.every("auth.api-key-usage-flush", "*/10 * * * * *", () => {});
    expect(s.jobs()).toEqual(["monitors.check:0192-abc", "auth.api-key-usage-flush"]);
    s.stop();
  });
});

describe("scheduler on the wall clock", () => {
  test("an interval and a one-shot fire in real time", async () => {
    const scheduler = createScheduler(silent(), createSystemClock());
    let ticks = 0;
    let fired = false;
    scheduler.interval("a.tick", 0.02, () => {
      ticks += 1;
    });
    scheduler.once("a.once", Date.now() + 30, () => {
      fired = true;
    });
    scheduler.start();
    await pollUntil(() => ticks >= 3 && fired, { what: "three ticks and the one-shot" });
    scheduler.stop();
  });
});

describe("manual scheduler", () => {
  test("runs jobs only on demand and shows their timing", async () => {
    const scheduler = createManualScheduler();
    let runs = 0;
    scheduler.every("capture.sweep", "0 * * * *", () => {
      runs += 1;
    });
    scheduler.interval("monitors.check:1", 45, () => {});
    scheduler.once("delivery.wake", START, () => {});
    expect(runs).toBe(0);
    await scheduler.run("capture.sweep");
    await scheduler.run("delivery.wake");
    expect(runs).toBe(1);
    expect(scheduler.patterns()).toEqual({
      "capture.sweep": "0 * * * *",
      "monitors.check:1": "45s",
    });
  });
});

function silent() {
  return createLogger({ level: "error", write: () => {} });
}
