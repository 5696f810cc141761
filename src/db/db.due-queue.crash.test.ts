import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { pollUntil } from "../test-utils/poll.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { openDatabase } from "./db.open.ts";

const CHILD = join(import.meta.dir, "../test-utils/due-queue-child.ts");
const ROWS = 60;
const LEASE_MS = 1500;
const tempDir = useTempDirs("weir-due-crash-");
const running: Subprocess[] = [];

afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});

function spawnWorker(dataDir: string, mode: "hold" | "work"): Subprocess {
  const proc = Bun.spawn([process.execPath, CHILD, dataDir, mode, String(LEASE_MS)], {
    stdout: "ignore",
    stderr: "inherit",
  });
  running.push(proc);
  return proc;
}

interface JobRow {
  id: string;
  locked_until: number | null;
  done_by: string | null;
  done_at: number | null;
}

test("kill -9 of a process holding leases: after a restart every row runs, once its lease has ended", async () => {
  const dataDir = tempDir();
  const db = openDatabase(dataDir, "full");
  db.sqlite.run(`CREATE TABLE jobs (id TEXT PRIMARY KEY, destination TEXT NOT NULL,
    next_attempt_at INTEGER, locked_until INTEGER, done_by TEXT, done_at INTEGER)`);
  db.sqlite.run("CREATE INDEX jobs_due ON jobs (next_attempt_at)");
  db.tx((tx) => {
    for (let i = 0; i < ROWS; i++) {
      tx.sqlite.run("INSERT INTO jobs (id, destination, next_attempt_at) VALUES (?, ?, ?)", [
        `job-${i}`,
        `dest-${i % 4}`,
        Date.now(),
      ]);
    }
  });
  const rows = () => db.sqlite.query("SELECT * FROM jobs ORDER BY id").all() as JobRow[];

  const holder = spawnWorker(dataDir, "hold");
  await pollUntil(() => rows().every((r) => r.locked_until !== null), {
    timeoutMs: 15_000,
    what: "the first worker to lease every row",
  });
  holder.kill("SIGKILL");
  await holder.exited;
  expect(holder.signalCode).toBe("SIGKILL");
  const killedAt = Date.now();
  // The leases outlive their process: that is what makes a restart find the rows.
  const leasesAtKill = new Map(rows().map((r) => [r.id, r.locked_until as number]));
  expect(rows().filter((r) => r.done_by !== null)).toEqual([]);

  const restarted = spawnWorker(dataDir, "work");
  const done = await pollUntil(
    () => {
      const all = rows();
      return all.every((r) => r.done_by !== null) && all;
    },
    { timeoutMs: 15_000, what: "every row to run after the restart" },
  );
  // Bounded: a lease plus a few polls, not the test's deadline.
  expect(Date.now() - killedAt).toBeLessThan(LEASE_MS + 8_000);
  expect(new Set(done.map((r) => r.done_by))).toEqual(new Set([`pid-${restarted.pid}`]));
  const early = done.filter((r) => (r.done_at as number) < (leasesAtKill.get(r.id) as number));
  expect(early.map((r) => r.id)).toEqual([]);
  db.close();
}, 60_000);
