/** Command-line parsing. Pure (no exits, no I/O), so it is unit-tested. */
import { parseArgs } from "node:util";

export interface CliOptions {
  scenarios: string[];
  durationSec: number;
  warmupSec: number;
  rounds: number;
  connections: number;
  json: boolean;
  strict: boolean;
  list: boolean;
  help: boolean;
  binary?: string;
}

export const USAGE = `usage: bun scripts/bench/run.ts [scenario ...] [options]

  no scenario names = all scenarios
  --duration <s>      seconds of measured load per round (default 10)
  --rounds <n>        interleaved baseline/subject rounds; medians are reported (default 3)
  --connections <n>   wrk connections (default 64)
  --warmup <s>        seconds of unmeasured load before each measurement (default 2; 0 = none)
  --binary <path>     run Weir scenarios against this executable (e.g. dist/weir) instead of bun src/main.ts
  --json              print the results as JSON on stdout (progress stays on stderr)
  --strict            exit 1 when any target is missed or any run had errors
  --list              list the scenarios and exit
  -h, --help          this text`;

function integer(name: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min)
    throw new Error(`--${name} must be an integer >= ${min}, got "${text}"`);
  return value;
}

/** Throws an Error with a one-line message on bad input. */
export function parseCli(argv: readonly string[]): CliOptions {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      duration: { type: "string" },
      rounds: { type: "string" },
      connections: { type: "string" },
      warmup: { type: "string" },
      binary: { type: "string" },
      json: { type: "boolean", default: false },
      strict: { type: "boolean", default: false },
      list: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  return {
    scenarios: positionals,
    durationSec: integer("duration", values.duration, 10, 1),
    warmupSec: integer("warmup", values.warmup, 2, 0),
    rounds: integer("rounds", values.rounds, 3, 1),
    // wrk needs at least one connection per thread, and runs one thread.
    connections: integer("connections", values.connections, 64, 1),
    json: values.json,
    strict: values.strict,
    list: values.list,
    help: values.help,
    binary: values.binary,
  };
}
