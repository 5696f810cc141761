#!/usr/bin/env bun
/**
 * Weir benchmark harness: every figure as a ratio to raw Bun.serve measured in the same run.
 * See scripts/bench/README.md.
 */
import { existsSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { type BenchConfig, runGroups } from "./lib/bench.ts";
import { installCleanupHooks, makeTempDir } from "./lib/cleanup.ts";
import { type CliOptions, parseCli, USAGE } from "./lib/cli.ts";
import { busyWarning, sampleCpuBusy } from "./lib/cpu-busy.ts";
import { groupScenarios } from "./lib/groups.ts";
import { detectPinning } from "./lib/pinning.ts";
import { headerText, jsonReport, textReport } from "./lib/report.ts";
import { summarize } from "./lib/summary.ts";
import type { Scenario } from "./lib/types.ts";
import { wrkPath } from "./lib/wrk.ts";
import { scenarios as allScenarios } from "./scenarios/index.ts";

const REPO_ROOT = resolve(import.meta.dir, "../..");

/** Usage errors and missing tools: one line on stderr, exit 2. */
function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

function parseOrExit(argv: string[]): CliOptions {
  try {
    return parseCli(argv);
  } catch (error) {
    return fail(`bench: ${(error as Error).message}\n${USAGE}`);
  }
}

function select(names: readonly string[]): Scenario[] {
  if (!names.length) return withReferences(allScenarios);
  const known = new Map(allScenarios.map((s) => [s.name, s]));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length)
    fail(`bench: unknown scenario ${unknown.join(", ")}; known: ${[...known.keys()].join(", ")}`);
  return withReferences(names.flatMap((n) => known.get(n) ?? []));
}

/** The selection plus every reference its subjects are compared with, each once, after them. */
function withReferences(selected: readonly Scenario[]): Scenario[] {
  const all = [...selected];
  for (const scenario of selected) {
    for (const { scenario: reference } of scenario.references ?? []) {
      if (!all.some((s) => s.name === reference.name)) all.push(reference);
    }
  }
  return all;
}

function listScenarios(): void {
  const width = Math.max(...allScenarios.map((s) => s.name.length));
  for (const s of allScenarios) console.log(`${s.name.padEnd(width)}  ${s.description}`);
}

/** `bun src/main.ts`, or the executable given with --binary. */
function weirCommand(binary: string | undefined): string[] {
  if (binary === undefined) return [process.execPath, join(REPO_ROOT, "src/main.ts")];
  const path = resolve(binary);
  if (!existsSync(path) || !statSync(path).isFile())
    fail(`bench: --binary ${binary}: no such file`);
  if (!(statSync(path).mode & 0o111)) fail(`bench: --binary ${binary}: not executable`);
  return [path];
}

async function main(): Promise<number> {
  const options = parseOrExit(process.argv.slice(2));
  if (options.help || options.list) {
    if (options.help) console.log(USAGE);
    else listScenarios();
    return 0;
  }
  const selected = select(options.scenarios);
  if (selected.some((s) => !s.run) && !wrkPath()) fail("wrk not found: apt-get install wrk");

  installCleanupHooks();
  const pinning = detectPinning();
  const config: BenchConfig = {
    durationSec: options.durationSec,
    warmupSec: options.warmupSec,
    rounds: options.rounds,
    connections: options.connections,
    pinning,
    cpuWarning: busyWarning(
      await sampleCpuBusy(),
      pinning.pinned ? [0, 1] : [...Array(availableParallelism()).keys()],
    ),
    weirCommand: weirCommand(options.binary),
    usesWeir: selected.some((s) => s.weir),
    repoRoot: REPO_ROOT,
    bunPath: process.execPath,
    rootDir: makeTempDir("weir-bench-"),
  };
  console.error(`${headerText(config)}\n`);
  const entries = summarize(
    await runGroups(groupScenarios(selected), config, (line) => console.error(line)),
  );
  console.log(options.json ? jsonReport(config, entries) : `\n${textReport(config, entries)}`);

  const failed = entries.some((e) => e.failure);
  const missed = entries.some((e) => e.flagged || e.targets.some((t) => !t.pass));
  if (options.strict && missed) return 1;
  // Without a figure there is nothing to compare: a scenario that could not run is an error.
  return failed ? 1 : 0;
}

try {
  process.exitCode = await main();
} catch (error) {
  console.error(`bench: ${(error as Error).stack ?? error}`);
  process.exitCode = 1;
}
