#!/usr/bin/env bun
/**
 * Two builds of Weir measured in one run: the scenarios of `run.ts` against the executable of a
 * base revision and of the head, round by round in alternating order, each side with its own
 * checkout's harness (so each seeds the schema its binary knows). Prints each scenario's rate and
 * its ratio to raw Bun.serve per side, and head ÷ base. The last column, head ÷ base of the
 * ratios to raw Bun.serve, is the one a "no slower than before" check reads: dividing by the
 * raw server measured in the same round takes the machine's own drift out.
 *
 *   bun scripts/bench/compare-builds.ts --base 945e98a capture-1k ingest delivery \
 *     [--head HEAD] [--rounds 3] [--duration 8] [--build-only]
 *
 * Builds are kept per commit under $TMPDIR/weir-bench-builds/<sha> (a detached worktree with
 * dist/weir), so a second run starts measuring at once. Needs wrk, like run.ts.
 */
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const REPO_ROOT = resolve(import.meta.dir, "../..");
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    base: { type: "string" },
    head: { type: "string", default: "HEAD" },
    rounds: { type: "string", default: "3" },
    duration: { type: "string", default: "8" },
    "build-only": { type: "boolean", default: false },
  },
});
if (!values.base) {
  console.error("compare-builds: --base <revision> is required");
  process.exit(2);
}
const rounds = Number(values.rounds);
const scenarios = positionals.length ? positionals : ["capture-1k", "ingest", "delivery"];

function run(command: string[], cwd: string): string {
  const done = Bun.spawnSync(command, { cwd, stdout: "pipe", stderr: "pipe" });
  if (done.exitCode !== 0) {
    throw new Error(`${command.join(" ")} (in ${cwd}) failed:\n${done.stderr.toString()}`);
  }
  return done.stdout.toString().trim();
}

interface Build {
  label: string;
  sha: string;
  dir: string;
  binary: string;
}

/** A detached checkout of `revision` with its own dist/weir, built once per commit. */
function buildOf(label: string, revision: string): Build {
  const sha = run(["git", "rev-parse", `${revision}^{commit}`], REPO_ROOT);
  const dir = join(tmpdir(), "weir-bench-builds", sha);
  const binary = join(dir, "dist/weir");
  if (!existsSync(binary)) {
    console.error(`compare-builds: building ${label} ${sha.slice(0, 10)} in ${dir}`);
    if (!existsSync(dir))
      run(["git", "worktree", "add", "--detach", "--force", dir, sha], REPO_ROOT);
    run(["bun", "install", "--frozen-lockfile"], dir);
    run(["./scripts/build"], dir);
  }
  return { label, sha, dir, binary };
}

interface Entry {
  name: string;
  role: "baseline" | "subject";
  rate: number;
  ratio: number;
  flagged: boolean;
}

/** One round of run.ts in the build's own checkout, against its binary; subject entries by name. */
function measure(build: Build): Map<string, Entry> {
  const args = ["--binary", build.binary, "--rounds", "1", "--duration", values.duration ?? "8"];
  const done = Bun.spawnSync(
    [process.execPath, "scripts/bench/run.ts", ...scenarios, ...args, "--json"],
    { cwd: build.dir, stdout: "pipe", stderr: "inherit" },
  );
  const report = JSON.parse(done.stdout.toString()) as { results: Entry[] };
  return new Map(report.results.filter((e) => e.role === "subject").map((e) => [e.name, e]));
}

const base = buildOf("base", values.base);
const head = buildOf("head", values.head ?? "HEAD");
if (values["build-only"]) process.exit(0);

const taken = new Map<Build, Map<string, Entry>[]>([
  [base, []],
  [head, []],
]);
for (let round = 0; round < rounds; round++) {
  // Alternate who goes first, so a machine warming up or slowing down hits both alike.
  const order = round % 2 === 0 ? [base, head] : [head, base];
  for (const build of order) {
    console.error(`compare-builds: round ${round + 1}/${rounds}, ${build.label}`);
    taken.get(build)?.push(measure(build));
  }
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};
const figures = (build: Build, name: string) => {
  const entries = (taken.get(build) ?? []).flatMap((r) => r.get(name) ?? []);
  return {
    rate: median(entries.map((e) => e.rate)),
    ratio: median(entries.map((e) => e.ratio)),
    flagged: entries.some((e) => e.flagged),
  };
};

console.log(`base ${base.sha.slice(0, 10)} · head ${head.sha.slice(0, 10)} · ${rounds} rounds`);
console.log(
  "scenario | base rate | head rate | head ÷ base | base ÷ raw | head ÷ raw | head÷base of ÷raw",
);
for (const name of scenarios) {
  const b = figures(base, name);
  const h = figures(head, name);
  if (!b.rate || !h.rate) {
    console.log(`${name} | no figure (see the rounds' output above)`);
    continue;
  }
  const note = b.flagged || h.flagged ? " (flagged: errors in a round)" : "";
  console.log(
    `${name} | ${b.rate.toFixed(0)} | ${h.rate.toFixed(0)} | ${(h.rate / b.rate).toFixed(3)} | ${b.ratio.toFixed(3)} | ${h.ratio.toFixed(3)} | ${(h.ratio / b.ratio).toFixed(3)}${note}`,
  );
}
