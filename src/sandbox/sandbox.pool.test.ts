// The pool around the engine: worker threads, the queue bound, the watchdog and replacement.
import { afterEach, describe, expect, test } from "bun:test";
import { AppError } from "../shared/errors.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { createSandbox, type Sandbox, type SandboxOptions } from "./sandbox.runner.ts";

const MIB = 1024 * 1024;
const FAULTY = new URL("../test-utils/sandbox-faulty.worker.ts", import.meta.url);
const open: Sandbox[] = [];

afterEach(() => {
  for (const sandbox of open.splice(0)) sandbox.close();
});

function pool(options: Partial<SandboxOptions> = {}): Sandbox {
  const sandbox = createSandbox({
    limits: { cpuMs: 1000, memoryBytes: 16 * MIB },
    workers: 2,
    queueLimit: 10,
    ...options,
  });
  open.push(sandbox);
  return sandbox;
}

describe("worker threads", () => {
  test("runs happen in workers, started on first use", async () => {
    const sandbox = pool();
    expect(sandbox.stats()).toMatchObject({ size: 2, workers: 0, started: 0 });
    const result = await sandbox.runScript({ code: "6 * 7" });
    expect(result).toMatchObject({ ok: true, output: 42 });
    expect(sandbox.stats()).toMatchObject({ workers: 1, runsInWorkers: 1, busy: 0 });
  });

  test("the main event loop keeps turning while a script spins for its whole budget", async () => {
    const sandbox = pool();
    await sandbox.runScript({ code: "0" });
    const spin = sandbox.runScript({ code: "for (;;) {}", limits: { cpuMs: 500 } });
    let ticks = 0;
    let longestGap = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks += 1;
    }, 5);
    const result = await spin;
    clearInterval(ticker);
    expect(result.ok ? null : result.error.kind).toBe("timeout");
    // On the main loop the ticker could not fire once in 500 ms.
    expect(ticks).toBeGreaterThan(10);
    expect(longestGap).toBeLessThan(250);
  });

  test("two workers run two scripts at once", async () => {
    const sandbox = pool();
    const spins = [1, 2].map(() =>
      sandbox.runScript({ code: "for (;;) {}", limits: { cpuMs: 400 } }),
    );
    await pollUntil(() => sandbox.stats().busy === 2, { what: "both workers busy" });
    const results = await Promise.all(spins);
    expect(results.map((r) => (r.ok ? null : r.error.kind))).toEqual(["timeout", "timeout"]);
  });
});

describe("queue", () => {
  test("a full queue refuses with sandbox_busy, and the queued runs still complete", async () => {
    const sandbox = pool({ workers: 1, queueLimit: 2 });
    const spin = sandbox.runScript({ code: "for (;;) {}", limits: { cpuMs: 300 } });
    await pollUntil(() => sandbox.stats().busy === 1, { what: "the worker busy" });
    const queued = [sandbox.runScript({ code: "1" }), sandbox.runScript({ code: "2" })];
    expect(sandbox.stats().queued).toBe(2);
    const refused = await sandbox.runScript({ code: "3" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).status).toBe(503);
    expect((refused as AppError).toBody()).toMatchObject({ error: "sandbox_busy" });
    expect((await spin).ok).toBe(false);
    expect((await Promise.all(queued)).map((r) => (r.ok ? r.output : null))).toEqual([1, 2]);
  });

  test("closing rejects the running and the queued runs", async () => {
    const sandbox = pool({ workers: 1 });
    const failure = (error: unknown) => (error as Error).message;
    const running = sandbox
      .runScript({ code: "for (;;) {}", limits: { cpuMs: 5000 } })
      .catch(failure);
    const queued = sandbox.runScript({ code: "1" }).catch(failure);
    await pollUntil(() => sandbox.stats().busy === 1, { what: "the worker busy" });
    sandbox.close();
    expect(await running).toBe("sandbox is closed");
    expect(await queued).toBe("sandbox is closed");
    expect(sandbox.stats().workers).toBe(0);
  });
});

describe("replacement", () => {
  test("a worker that ignores its CPU deadline is killed and replaced", async () => {
    const sandbox = pool({ workers: 1, workerEntry: FAULTY, killGraceMs: 200 });
    const result = await sandbox.runScript({ code: "hang!", limits: { cpuMs: 100 } });
    expect(result.ok ? null : result.error).toEqual({
      kind: "timeout",
      message: "script exceeded its 100 ms CPU limit; its worker did not stop and was killed",
    });
    expect(sandbox.stats().replaced).toBe(1);
    expect(await sandbox.runScript({ code: "'next'" })).toMatchObject({ ok: true, output: "next" });
  });

  test("a worker that crashes mid-run is replaced; the run fails, the next one works", async () => {
    const sandbox = pool({ workers: 1, workerEntry: FAULTY });
    const queued = sandbox.runScript({ code: "'queued behind the crash'" });
    const crashed = await sandbox.runScript({ code: "crash!" });
    expect(crashed.ok ? null : crashed.error.kind).toBe("script_error");
    expect(crashed.ok ? "" : crashed.error.message).toContain("crashed");
    expect(sandbox.stats()).toMatchObject({ replaced: 1, started: 2 });
    expect(await queued).toMatchObject({ ok: true, output: "queued behind the crash" });
  });

  test("a worker whose heap grew past its memory limit is replaced; a stack overflow is not", async () => {
    const sandbox = pool({ workers: 1 });
    const deep = await sandbox.runScript({ code: "function f() { return f() + 1; } f()" });
    expect(deep.ok ? null : deep.error.kind).toBe("memory_limit");
    expect(sandbox.stats().replaced).toBe(0);
    const bomb = await sandbox.runScript({
      code: "let a = [1]; for (;;) a = a.concat(a);",
      limits: { memoryBytes: 8 * MIB },
    });
    expect(bomb.ok ? null : bomb.error.kind).toBe("memory_limit");
    expect(sandbox.stats()).toMatchObject({ replaced: 1, started: 2 });
    expect(await sandbox.runScript({ code: "1 + 1" })).toMatchObject({ ok: true, output: 2 });
  });

  test("a worker that cannot start fails the waiting runs with a clear error", async () => {
    const sandbox = pool({ workerEntry: new URL("./no-such.worker.ts", import.meta.url) });
    await expect(sandbox.runScript({ code: "1" })).rejects.toThrow(
      "sandbox worker failed to start",
    );
  });
});

describe("tenants", () => {
  test("forty spinning runs of one tenant hold another tenant's run for at most one run", async () => {
    const sandbox = pool({ workers: 1, queueLimit: 64 });
    const finished: string[] = [];
    const noisy = Array.from({ length: 40 }, () =>
      sandbox
        .runScript({ code: "for (;;) {}", limits: { cpuMs: 50 }, tenant: "org-a" })
        .then(() => finished.push("a")),
    );
    const quiet = sandbox
      .runScript({ code: "6 * 7", tenant: "org-b" })
      .then((result) => finished.push("b") && result);
    expect(await quiet).toMatchObject({ ok: true, output: 42 });
    // At most the run already in the worker went first; FIFO would have run all forty.
    expect(finished.indexOf("b")).toBeLessThanOrEqual(1);
    await Promise.all(noisy);
    expect(finished.filter((who) => who === "a").length).toBe(40);
  });

  test("tenants with backlogs take turns; each tenant's runs keep their order", async () => {
    const sandbox = pool({ workers: 1, queueLimit: 64 });
    const order: string[] = [];
    const runs = ["a", "b"].flatMap((tenant) =>
      [1, 2, 3].map((n) =>
        sandbox
          .runScript({ code: `"${tenant}${n}"`, tenant })
          .then((result) => order.push(String(result.ok && result.output))),
      ),
    );
    await Promise.all(runs);
    expect(order).toEqual(["a1", "b1", "a2", "b2", "a3", "b3"]);
  });

  test("the queue limit is per tenant: one tenant's full queue does not refuse another's run", async () => {
    const sandbox = pool({ workers: 1, queueLimit: 3 });
    const spins = Array.from({ length: 3 }, () =>
      sandbox.runScript({ code: "for (;;) {}", limits: { cpuMs: 50 }, tenant: "org-a" }),
    );
    await expect(sandbox.runScript({ code: "0", tenant: "org-a" })).rejects.toMatchObject({
      code: "sandbox_busy",
    });
    expect(await sandbox.runScript({ code: "1", tenant: "org-b" })).toMatchObject({ ok: true });
    await Promise.all(spins);
  });
});
