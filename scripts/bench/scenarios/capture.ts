import { join } from "node:path";
import { BENCH_ENDPOINT, seedWeirData } from "../lib/seed.ts";
import { weirServer } from "../lib/subjects.ts";
import type { LaunchContext, RequestSpec, Scenario, ServerSpec } from "../lib/types.ts";

const SLUG = BENCH_ENDPOINT.slug;

/**
 * `weir serve` with an endpoint to capture on: the data dir is migrated and seeded with an
 * organization and an endpoint before the server starts (the same migrations the binary embeds,
 * so `--binary` finds nothing left to apply). Durability stays at its default, `full`.
 */
function seededWeir(ctx: LaunchContext, env: Record<string, string> = {}): ServerSpec {
  seedWeirData(ctx, { endpoint: true });
  return weirServer(ctx, env);
}

const REFERENCE_DIR = join(import.meta.dir, "../reference");

/** The ~40-line prototype of durable capture the target is set against (reference/). */
function prototype(ctx: LaunchContext): ServerSpec {
  return {
    command: [
      ctx.bunPath,
      join(REFERENCE_DIR, "proto-group-commit.ts"),
      String(ctx.port),
      join(ctx.dir, "proto.db"),
    ],
    // Any /w/ URL is a capture for it; a GET stores one empty row.
    healthPath: `/w/${SLUG}`,
  };
}

/** mockttp recording every request in memory, on Node when there is one (what it is made for). */
function mockttp(ctx: LaunchContext): ServerSpec {
  const runtime = Bun.which("node") ?? ctx.bunPath;
  return {
    command: [runtime, join(REFERENCE_DIR, "mockttp-catcher.mjs"), String(ctx.port)],
    healthPath: `/w/${SLUG}`,
  };
}

function references(name: string, request: RequestSpec): Scenario["references"] {
  return [
    {
      scenario: {
        name: `${name}-prototype`,
        description: `reference for ${name}: the group-commit prototype (reference/proto-group-commit.ts)`,
        subject: prototype,
        request,
      },
      minRatio: 0.9,
    },
    {
      scenario: {
        name: `${name}-mockttp`,
        description: `reference for ${name}: mockttp recording every request in memory`,
        subject: mockttp,
        request,
      },
      minRatio: 3,
    },
  ];
}

const REQUEST_1K: RequestSpec = { method: "POST", path: `/w/${SLUG}`, bodyBytes: 1024 };
const REQUEST_16K: RequestSpec = { method: "POST", path: `/w/${SLUG}`, bodyBytes: 16 * 1024 };

/**
 * Durable capture of a small webhook: ≥ 0.90 of the prototype measured in the same rounds with
 * p99 < 15 ms, and ≥ 3× mockttp (≥ 0.40 of raw Bun.serve was the first target).
 */
export const capture1k: Scenario = {
  name: "capture-1k",
  description:
    "POST 1 KiB JSON to /w/{slug}: stored byte-exact, 200 after a synchronous=FULL commit",
  weir: true,
  subject: seededWeir,
  request: REQUEST_1K,
  targets: { minRatio: 0.4, maxP99Ms: 15 },
  references: references("capture-1k", REQUEST_1K),
};

/**
 * Durable capture of a large webhook: disk-bound (WAL and checkpoint write every byte twice);
 * ≥ 0.90 of the prototype and ≥ 3× mockttp under the same load.
 */
export const capture16k: Scenario = {
  name: "capture-16k",
  description:
    "POST 16 KiB JSON to /w/{slug}: stored byte-exact, 200 after a synchronous=FULL commit",
  weir: true,
  subject: seededWeir,
  request: REQUEST_16K,
  targets: { minRatio: 0.1 },
  references: references("capture-16k", REQUEST_16K),
};
