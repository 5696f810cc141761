import { statfsSync } from "node:fs";
import type { Logger } from "./logger.ts";

/**
 * Sampled every 5 s by the scheduler, and after every RESAMPLE_AFTER_BYTES written: what fills
 * the disk fastest is Weir's own writes, which are counted. The hot path reads the last verdict.
 */
export const DISK_SAMPLE_SECONDS = 5;
/** Written bytes (captures, ingests) after which the free space is sampled again at once. */
const RESAMPLE_AFTER_BYTES = 16 * 1024 * 1024;
const MIB = 1024 * 1024;
/**
 * Scheduled samples closer together than this, in real time, are skipped: free space is a fact
 * of the machine, and a clock moved days ahead (tests) must not call statfs once per second of it.
 */
const MIN_SAMPLE_GAP_MS = 200;

/**
 * Whether the data directory's filesystem still has room (decisions.md §14): below
 * `min_free_disk_mb`, every write path (captures, and ingest) refuses with 507 before SQLite
 * fails, which would fail every organization at once. statfs is never called per request: it is
 * sampled every 5 s, and again after every 16 MiB written.
 */
export interface DiskGuard {
  /** True while free space is below the minimum (as of the last sample). */
  isLow(): boolean;
  /** Counts bytes about to be written; samples again once enough have been. */
  noteWritten(bytes: number): void;
  /** Free bytes and the verdict as of now (samples). */
  sample(): { freeBytes: number; low: boolean };
  /**
   * The periodic sample, run by a job every DISK_SAMPLE_SECONDS (the capture room's); skipped
   * when the last one is under 200 ms old in real time.
   */
  sampleOnSchedule(): void;
}

export interface DiskGuardDeps {
  dataDir: string;
  /** Read at every sample, so a changed minimum applies without a restart. */
  config: { min_free_disk_mb: number };
  logger: Logger;
}

/** Free bytes available to Weir (not root's reserve) on the filesystem holding `dir`. */
export function freeBytesOf(dir: string): number {
  const stats = statfsSync(dir);
  return stats.bavail * stats.bsize;
}

/** The guard of one data dir; it samples once at once, then when told to. */
export function createDiskGuard(deps: DiskGuardDeps): DiskGuard {
  const logger = deps.logger.child({ scope: "disk" });
  let low = false;
  let writtenSinceSample = 0;
  const sample = () => {
    writtenSinceSample = 0;
    let freeBytes: number;
    try {
      freeBytes = freeBytesOf(deps.dataDir);
    } catch (error) {
      // An unreadable statfs says nothing about space: keep the last verdict, say why once more.
      logger.warn("free disk space unknown", { data_dir: deps.dataDir, error });
      return { freeBytes: Number.NaN, low };
    }
    const minBytes = deps.config.min_free_disk_mb * MIB;
    const nowLow = freeBytes < minBytes;
    if (nowLow !== low) {
      const fields = {
        data_dir: deps.dataDir,
        free_mb: Math.floor(freeBytes / MIB),
        min_free_disk_mb: deps.config.min_free_disk_mb,
      };
      if (nowLow) logger.error("free disk space below min_free_disk_mb: writes refused", fields);
      else logger.info("free disk space back above min_free_disk_mb: writes accepted", fields);
    }
    low = nowLow;
    return { freeBytes, low };
  };
  let lastSampleAt = performance.now();
  sample();
  return {
    sampleOnSchedule() {
      const now = performance.now();
      if (now - lastSampleAt < MIN_SAMPLE_GAP_MS) return;
      lastSampleAt = now;
      sample();
    },
    isLow: () => low,
    noteWritten(bytes) {
      writtenSinceSample += bytes;
      if (writtenSinceSample >= RESAMPLE_AFTER_BYTES) sample();
    },
    sample,
  };
}

/**
 * The guard of a node whose data lives in PostgreSQL: its data dir holds no data, so its free
 * space must not refuse writes. The database server's disk is PostgreSQL's to guard (a full
 * disk fails the write, which is answered as an error and stores nothing), and the operator's
 * to watch.
 */
export function createDatabaseServerDiskGuard(): DiskGuard {
  return {
    isLow: () => false,
    noteWritten() {},
    sample: () => ({ freeBytes: Number.NaN, low: false }),
    sampleOnSchedule() {},
  };
}
