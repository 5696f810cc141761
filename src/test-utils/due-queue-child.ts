/**
 * A process running a due-queue over the `jobs` table of a data dir, for the kill -9 test
 * (src/db/db.due-queue.crash.test.ts). `hold`: claims rows and never finishes them (a worker
 * killed mid-run); `work`: finishes every row it claims, recording who and when.
 *   bun src/test-utils/due-queue-child.ts <data-dir> <hold|work> <lease-ms>
 */
import { createDueQueue } from "../db/db.due-queue.ts";
import { openDatabase } from "../db/db.open.ts";
import { createSystemClock } from "../shared/clock.ts";
import { createLogger } from "../shared/logger.ts";
import { createScheduler } from "../shared/scheduler.ts";

const [dataDir, mode, leaseText] = process.argv.slice(2);
if (!dataDir || (mode !== "hold" && mode !== "work")) {
  console.error("usage: due-queue-child.ts <data-dir> <hold|work> <lease-ms>");
  process.exit(2);
}
const db = openDatabase(dataDir, "full");
const clock = createSystemClock();
const logger = createLogger({ level: "error" });
const scheduler = createScheduler(logger, clock);
const finish = db.sqlite.prepare(
  `UPDATE jobs SET next_attempt_at = NULL, locked_until = NULL, done_by = ?, done_at = ?
    WHERE id = ? AND locked_until = ?`,
);
const queue = createDueQueue({
  name: "jobs",
  db,
  table: { table: "jobs", key: "destination" },
  clock,
  scheduler,
  logger,
  leaseMs: Number(leaseText),
  concurrency: 1000,
  perKey: 1000,
  pollSeconds: 0.2,
  run(row, lease) {
    if (mode === "hold") return new Promise<void>(() => {});
    finish.run(`pid-${process.pid}`, clock.now(), row.id as string, lease.until);
  },
});
scheduler.start();
queue.start();
// Keeps the process alive (the scheduler's timers do not).
setInterval(() => {}, 60_000);
