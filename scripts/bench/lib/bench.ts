/** Runs the groups: per round, the baseline and each subject in turn, each on a fresh server. */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../../../src/test-utils/free-port.ts";
import type { Group } from "./groups.ts";
import type { Pinning } from "./pinning.ts";
import { readCpuSeconds, readRssKiB } from "./proc.ts";
import { launchServer, stopServer } from "./server.ts";
import { formatMs, formatRate } from "./stats.ts";
import type { LaunchContext, Measurement, Scenario, ServerSpec } from "./types.ts";

export interface BenchConfig {
  durationSec: number;
  warmupSec: number;
  rounds: number;
  connections: number;
  pinning: Pinning;
  /** Set when a cpu the run uses was already busy before it started (see cpu-busy.ts). */
  cpuWarning: string | null;
  weirCommand: string[];
  /** Whether any selected scenario runs Weir (only then is weirCommand worth reporting). */
  usesWeir: boolean;
  repoRoot: string;
  bunPath: string;
  /** Temp root (already registered for cleanup); each launch gets a subdirectory. */
  rootDir: string;
}

export interface RoundResult {
  round: number;
  measurement: Measurement;
  /** Resident memory right after the load, in KiB; null when it could not be read. */
  rssKiB: number | null;
  /**
   * Server CPU time (user + system, all threads) per operation during the measured load, in µs:
   * steadier than the rate on a shared machine, where neighbours take the server's core.
   */
  cpuUsPerOp: number | null;
}

export interface EntryResult {
  name: string;
  role: "baseline" | "subject";
  scenario?: Scenario;
  rounds: RoundResult[];
  /** Set when a round could not be measured at all; later rounds are skipped. */
  failure?: string;
}

export interface GroupResult {
  group: Group;
  baseline: EntryResult;
  subjects: EntryResult[];
}

type Progress = (line: string) => void;
type SpecFn = (ctx: LaunchContext) => ServerSpec;

/** Starts a fresh server, warms it up, measures, samples RSS, stops it. */
async function measureOnce(
  entry: EntryResult,
  specFn: SpecFn,
  group: Group,
  config: BenchConfig,
  dir: string,
): Promise<Omit<RoundResult, "round">> {
  const dataDir = join(dir, "data");
  mkdirSync(dataDir, { recursive: true });
  const ctx: LaunchContext = {
    port: freePort(),
    dir: dataDir,
    weirCommand: config.weirCommand,
    bunPath: config.bunPath,
    repoRoot: config.repoRoot,
  };
  const spec = specFn(ctx);
  // A subject with a load of its own (one baseline, several kinds of load on one server).
  const runLoad = entry.scenario?.run ?? group.runLoad;
  const server = await launchServer(spec, {
    port: ctx.port,
    prefix: config.pinning.serverPrefix,
    cwd: config.repoRoot,
    dir,
  });
  try {
    const target = { role: entry.role, origin: server.origin, port: server.port, pid: server.pid };
    const options = { connections: config.connections, loadPrefix: config.pinning.loadPrefix, dir };
    // Warm-up lets the JIT and caches settle; its figures are thrown away.
    if (config.warmupSec > 0) await runLoad(target, { ...options, durationSec: config.warmupSec });
    const cpuBefore = await readCpuSeconds(server.pid);
    const measurement = await runLoad(target, {
      ...options,
      durationSec: config.durationSec,
    });
    const cpuAfter = await readCpuSeconds(server.pid);
    const operations = measurement.rate * config.durationSec;
    const cpuUsPerOp =
      cpuBefore === null || cpuAfter === null || operations <= 0
        ? null
        : ((cpuAfter - cpuBefore) * 1e6) / operations;
    return { measurement, rssKiB: await readRssKiB(server.pid), cpuUsPerOp };
  } finally {
    await stopServer(server);
  }
}

function describe(result: RoundResult, unit: string): string {
  const m = result.measurement;
  const p99 = m.latencyMs ? `, p99 ${formatMs(m.latencyMs.p99)}` : "";
  const cpu = result.cpuUsPerOp === null ? "" : `, ${result.cpuUsPerOp.toFixed(1)} µs CPU/op`;
  const bad = m.non2xx || m.errors ? `  !! non-2xx ${m.non2xx}, socket errors ${m.errors}` : "";
  return `${formatRate(m.rate)} ${unit}${p99}${cpu}${bad}`;
}

async function runEntry(
  entry: EntryResult,
  specFn: SpecFn,
  group: Group,
  config: BenchConfig,
  round: number,
  progress: Progress,
) {
  if (entry.failure) return;
  const label = `[round ${round}/${config.rounds}] ${entry.name}`;
  try {
    const dir = join(config.rootDir, `${entry.name}-${group.load.replace(/\W+/g, "_")}-r${round}`);
    const result = { ...(await measureOnce(entry, specFn, group, config, dir)), round };
    entry.rounds.push(result);
    progress(`${label}: ${describe(result, group.unit)}`);
  } catch (error) {
    entry.failure = (error as Error).message;
    progress(`${label}: FAILED, skipping its later rounds\n${entry.failure}`);
  }
}

/** Interleaves the baseline and the subjects per round, rotating who goes first against drift. */
export async function runGroups(
  groups: readonly Group[],
  config: BenchConfig,
  progress: Progress,
): Promise<GroupResult[]> {
  const results = groups.map((group) => ({
    group,
    baseline: { name: "baseline", role: "baseline" as const, rounds: [] } as EntryResult,
    subjects: group.scenarios.map(
      (scenario): EntryResult => ({ name: scenario.name, role: "subject", scenario, rounds: [] }),
    ),
  }));
  for (let round = 1; round <= config.rounds; round++) {
    for (const result of results) {
      const entries: [EntryResult, SpecFn][] = [
        [result.baseline, result.group.baseline],
        ...result.subjects.map((entry): [EntryResult, SpecFn] => [
          entry,
          entry.scenario?.subject ?? result.group.baseline,
        ]),
      ];
      const shift = (round - 1) % entries.length;
      for (const [entry, specFn] of [...entries.slice(shift), ...entries.slice(0, shift)]) {
        await runEntry(entry, specFn, result.group, config, round, progress);
      }
    }
  }
  return results;
}
