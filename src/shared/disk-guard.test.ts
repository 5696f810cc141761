import { describe, expect, test } from "bun:test";
import { pollUntil } from "../test-utils/poll.ts";
import { makeTempDir } from "../test-utils/temp-dir.ts";
import { createDiskGuard, freeBytesOf } from "./disk-guard.ts";
import { createLogger } from "./logger.ts";

const MIB = 1024 * 1024;

/** A guard on a real temp dir; thresholds are set around the machine's real free space. */
function guardOf(minFreeMb: number) {
  const dir = makeTempDir("weir-disk-");
  const lines: Array<Record<string, unknown>> = [];
  const config = { min_free_disk_mb: minFreeMb };
  const guard = createDiskGuard({
    dataDir: dir.path,
    config,
    logger: createLogger({ level: "debug", write: (line) => lines.push(JSON.parse(line)) }),
  });
  return { guard, config, lines, dir };
}

describe("disk guard", () => {
  test("free space above the minimum is not low; below it is, with one log line naming the data dir", async () => {
    const ok = guardOf(0);
    expect(ok.guard.isLow()).toBe(false);
    expect(ok.lines).toEqual([]);
    ok.dir.remove();

    const free = freeBytesOf(makeTempDir("weir-disk-probe-").path);
    const { guard, lines, dir, config } = guardOf(Math.ceil(free / MIB) + 1024);
    expect(guard.isLow()).toBe(true);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.level).toBe("error");
    expect(lines[0]?.data_dir).toBe(dir.path);

    // Sampled on schedule: a lowered minimum applies at the next sample, and says so.
    config.min_free_disk_mb = 0;
    expect(guard.isLow()).toBe(true);
    // Scheduled samples closer than 200 ms of real time are skipped: run the job until one counts.
    await pollUntil(
      async () => {
        guard.sampleOnSchedule();
        return !guard.isLow();
      },
      { intervalMs: 50, what: "a scheduled sample" },
    );
    expect(lines.at(-1)?.level).toBe("info");
    dir.remove();
  });

  test("written bytes trigger a sample of their own once 16 MiB have been noted", () => {
    const { guard, config, dir } = guardOf(0);
    config.min_free_disk_mb = 1024 * 1024 * 1024; // a petabyte: more than any disk here
    guard.noteWritten(15 * MIB);
    expect(guard.isLow()).toBe(false);
    guard.noteWritten(MIB);
    expect(guard.isLow()).toBe(true);
    dir.remove();
  });
});
