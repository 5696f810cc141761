/**
 * What the `actions` scenario needs around the load: a Weir data dir with an enterprise
 * organization (actions are a paid feature), its API key and the capture endpoint; the chain
 * created through the API; and the run records read back from the server's database file once
 * the load is over (read only: the server stays the one writer).
 */

import { Database } from "bun:sqlite";
import { join } from "node:path";
import { DB_FILE } from "../../../src/db/db.open.ts";
import { BENCH_ENDPOINT, seedWeirData } from "../lib/seed.ts";
import { weirServer } from "../lib/subjects.ts";
import type { LaunchContext, ServerSpec } from "../lib/types.ts";

/** A fixed key of the seeded organization: the set-up needs no login. */
const API_KEY = `svc_${"Actions7".repeat(4)}`;
export const CAPTURE_PATH = `/w/${BENCH_ENDPOINT.slug}`;

/** How long the runs a load left owed may take to be recorded before the run counts as failed. */
const DRAIN_MS = 120_000;

/** The data dir of each server by port: the runner is handed the target, not its launch. */
const dataDirs = new Map<number, string>();

/** `weir serve` on a data dir holding an enterprise organization, its API key and the endpoint. */
export function seededWeir(ctx: LaunchContext): ServerSpec {
  seedWeirData(ctx, { endpoint: true, apiKey: API_KEY });
  dataDirs.set(ctx.port, ctx.dir);
  return weirServer(ctx);
}

export type ChainKind = "plain" | "script";

/** The chain every bench body passes through to the end: condition → extract_json → store_variable. */
function chainOf(kind: ChainKind): { type: string; name: string; config: unknown }[] {
  const script = {
    type: "run_script",
    name: "Total in cents",
    config: { code: "variables.cents = Math.round(Number(variables.total) * 100);" },
  };
  return [
    {
      type: "condition",
      name: "Orders only",
      config: { "body.type": { $in: ["order.created", "order.updated"] } },
    },
    {
      type: "extract_json",
      name: "Id and total",
      config: {
        source: "body",
        extractions: [
          { path: "id", variable: "order_id" },
          { path: "total", variable: "total" },
        ],
      },
    },
    ...(kind === "script" ? [script] : []),
    { type: "store_variable", name: "Last order", config: { name: "last", value: "$order_id$" } },
  ];
}

const prepared = new Set<string>();

/** Once per server: the endpoint's chain, created through the API as a user would. */
export async function prepareChain(origin: string, kind: ChainKind): Promise<void> {
  if (prepared.has(origin)) return;
  for (const action of chainOf(kind)) {
    const path = `/api/v1/endpoints/${BENCH_ENDPOINT.id}/actions`;
    const response = await fetch(`${origin}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
      body: JSON.stringify(action),
    });
    if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  }
  prepared.add(origin);
}

/** What the server recorded of its runs after a given rowid of `action_runs`. */
export interface RunsRecorded {
  /** The last rowid read: where the next reading starts. */
  lastRowid: number;
  /** Runs whose chain ran. */
  ran: number;
  /** Runs recorded as skipped because too many of the endpoint's runs were waiting. */
  skipped: number;
  /** Runs in which some action did not end `ok`: the chain did not do what is measured. */
  incomplete: number;
  /** When the last run was recorded (epoch ms, the server's clock). */
  lastAt: number;
  /** Each run's chain time (the actions' duration_ms added up), ms. */
  chainMs: number[];
  /** The run_script action's duration_ms of each run that had one. */
  scriptMs: number[];
}

interface StoredResult {
  type: string;
  status: string;
  duration_ms: number;
  output: { reason?: string } | null;
}

function openReadOnly(port: number): Database {
  const dir = dataDirs.get(port);
  if (dir === undefined) throw new Error(`no data dir known for the server on port ${port}`);
  return new Database(join(dir, DB_FILE), { readonly: true });
}

/** Waits until no capture's run is owed any more (every chain of the load recorded). */
export async function drainedRuns(port: number): Promise<void> {
  const db = openReadOnly(port);
  try {
    const owed = db.query<{ n: number }, []>("SELECT count(*) AS n FROM action_runs_due");
    const deadline = Date.now() + DRAIN_MS;
    while ((owed.get()?.n ?? 0) > 0) {
      if (Date.now() > deadline) throw new Error(`runs still owed after ${DRAIN_MS} ms`);
      await Bun.sleep(100);
    }
  } finally {
    db.close();
  }
}

/** Where the runs recorded so far end: the next reading starts after it. */
export function lastRunRowid(port: number): number {
  const db = openReadOnly(port);
  try {
    return (
      db.query<{ n: number | null }, []>("SELECT max(rowid) AS n FROM action_runs").get()?.n ?? 0
    );
  } finally {
    db.close();
  }
}

/** The runs recorded after `afterRowid`. */
export function runsRecorded(port: number, afterRowid: number): RunsRecorded {
  const db = openReadOnly(port);
  try {
    const rows = db
      .query<{ rowid: number; results: string; created_at: string }, [number]>(
        "SELECT rowid, results, created_at FROM action_runs WHERE rowid > ? ORDER BY rowid",
      )
      .all(afterRowid);
    return tallyRuns(rows, afterRowid);
  } finally {
    db.close();
  }
}

/** The run records as counts and timings; a run skipped for a full queue has no timing. */
export function tallyRuns(
  rows: readonly { rowid: number; results: string; created_at: string }[],
  afterRowid: number,
): RunsRecorded {
  const last = rows.at(-1);
  const recorded: RunsRecorded = {
    lastRowid: last?.rowid ?? afterRowid,
    ran: 0,
    skipped: 0,
    incomplete: 0,
    lastAt: last ? Date.parse(last.created_at) : Number.NaN,
    chainMs: [],
    scriptMs: [],
  };
  for (const row of rows) {
    const results = JSON.parse(row.results) as StoredResult[];
    if (results.some((r) => r.output?.reason === "too_many_runs_waiting")) {
      recorded.skipped++;
      continue;
    }
    recorded.ran++;
    if (results.some((r) => r.status !== "ok")) recorded.incomplete++;
    recorded.chainMs.push(results.reduce((sum, r) => sum + r.duration_ms, 0));
    const script = results.find((r) => r.type === "run_script" && r.status === "ok");
    if (script) recorded.scriptMs.push(script.duration_ms);
  }
  return recorded;
}
