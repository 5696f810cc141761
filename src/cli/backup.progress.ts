import { statSync } from "node:fs";

const UNITS = ["KiB", "MiB", "GiB", "TiB"];

/** A byte count for people: `512 B`, `48.0 KiB`, `120.3 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${UNITS[unit]}`;
}

/** Databases above this size get progress lines even when stderr is not a terminal. */
export const PROGRESS_THRESHOLD = 32 * 1024 * 1024;
const POLL_MS = 250;

export interface Progress {
  /** Stops polling; on success prints the final 100% line. */
  stop(done: boolean): void;
}

/**
 * Polls the size of the growing output file and prints `backup: 42% (x of y)` on stderr.
 * The total is only an estimate (the source's page_count * page_size): VACUUM drops free pages,
 * so the copy may end smaller, and the percentage is capped below 100 until the copy finishes.
 */
export function startProgress(outputPath: string, estimate: number): Progress {
  const tty = process.stderr.isTTY === true;
  if (!tty && estimate <= PROGRESS_THRESHOLD) return { stop() {} };
  let lastShown = -1;
  const show = (bytes: number, percent: number) => {
    // On a terminal one line is rewritten in place; in a log only changes are worth a line.
    if (!tty && percent === lastShown) return;
    lastShown = percent;
    const line = `backup: ${percent}% (${formatBytes(bytes)} of ${formatBytes(estimate)})`;
    process.stderr.write(tty ? `\r\x1b[K${line}` : `${line}\n`);
  };
  const timer = setInterval(() => {
    const bytes = sizeOf(outputPath);
    show(bytes, Math.min(99, Math.floor((bytes / Math.max(estimate, 1)) * 100)));
  }, POLL_MS);
  return {
    stop(done) {
      clearInterval(timer);
      if (done) show(sizeOf(outputPath), 100);
      if (tty && lastShown >= 0) process.stderr.write("\n");
    },
  };
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0; // not created yet
  }
}
