import { findOrganization } from "../auth/accounts.service.ts";
import type { Db } from "../db/db.open.ts";
import type { PostgresDb, PostgresTx } from "../db/db.postgres-handle.ts";
import { createConfiguredSender } from "../deps.ts";
import type { ImportEntry } from "../monitors/monitors.import.model.ts";
import { createMonitorsPostgresStore } from "../monitors/monitors.postgres.ts";
import { createMonitor, type MonitorsDeps, type Tenant } from "../monitors/monitors.service.ts";
import { createMonitorsSqliteStore } from "../monitors/monitors.sqlite.ts";
import type { MonitorsStore } from "../monitors/monitors.store.ts";
import { AppError } from "../shared/errors.ts";
import { type AdminContext, withAdminData } from "./admin.data.ts";
import { fail, printJson } from "./cli.common.ts";

/**
 * `created` only once written; `valid` passed every check but was not written (so it has no
 * id, nor a push URL that the real run would make anew).
 */
type ImportResult =
  | {
      name: string;
      status: "created";
      id: string;
      type: string;
      push_url?: string;
      notes: string[];
    }
  | { name: string; status: "valid"; type: string; notes: string[] }
  | { name: string; status: "skipped" | "failed"; reason: string };

export interface ImportFlags {
  dataDir?: string;
  database?: string;
  json?: boolean;
  org?: string;
  dryRun?: boolean;
}

/** Thrown inside the transaction to undo it: a dry run, or an entry that failed. */
class Undo extends Error {}

/**
 * Creates every entry in ONE transaction, as the API would (same checks, the plan's quota):
 * when any entry fails, or on a dry run, the transaction is undone and nothing is written.
 */
export async function importMonitors(entries: ImportEntry[], flags: ImportFlags) {
  await withAdminData(flags, async (ctx) => {
    const org = await organizationOf(ctx, flags.org);
    const tenant = { organizationId: org.id, plan: org.plan };
    const results: ImportResult[] = [];
    const importAll = async (store: MonitorsStore) => {
      const deps = monitorsDeps(ctx, store);
      for (const entry of entries) {
        results.push(await importOne(tenant, entry, ctx.config.base_url, deps));
      }
      if (flags.dryRun || results.some((r) => r.status === "failed")) throw new Undo();
    };
    try {
      // The service awaits its store, and each create is a unit of its own. Nothing else runs
      // in this process, so the import holds one transaction open across the awaits, and each
      // create runs inside it (SQLite: in it; PostgreSQL: in a savepoint of it).
      if (ctx.postgres) {
        const { postgres } = ctx;
        await postgres.sql.begin((tx) =>
          importAll(createMonitorsPostgresStore(insideOpenPgTransaction(postgres, tx))),
        );
      } else {
        const db = ctx.db ?? fail("weir monitors import needs a database");
        db.sqlite.run("BEGIN IMMEDIATE");
        try {
          await importAll(createMonitorsSqliteStore(insideOpenTransaction(db)));
          db.sqlite.run("COMMIT");
        } catch (error) {
          db.sqlite.run("ROLLBACK");
          throw error;
        }
      }
    } catch (error) {
      if (!(error instanceof Undo)) throw error;
      results.splice(
        0,
        results.length,
        ...results.map(
          (r): ImportResult =>
            r.status === "created"
              ? { name: r.name, status: "valid", type: r.type, notes: r.notes }
              : r,
        ),
      );
    }
    const failed = results.filter((r) => r.status === "failed").length;
    if (flags.json) {
      printJson({
        organization_id: org.id,
        written: !flags.dryRun && failed === 0,
        monitors: results,
      });
    } else {
      printLines(results);
    }
    if (failed > 0) fail(`nothing imported: ${failed} of ${results.length} entries failed`);
    if (flags.dryRun && !flags.json) console.log("dry run: nothing written");
  });
}

async function importOne(
  tenant: Tenant,
  entry: ImportEntry,
  baseUrl: string,
  deps: MonitorsDeps,
): Promise<ImportResult> {
  if ("skipped" in entry) {
    return { name: entry.name, status: "skipped", reason: entry.skipped } satisfies ImportResult;
  }
  const notes = [...entry.notes];
  let pushToken = entry.pushToken;
  if (pushToken && (await deps.store.findByPushToken(pushToken))) {
    notes.push("new push URL: the old token is already used by another monitor");
    pushToken = undefined;
  }
  try {
    const created = await createMonitor(tenant, entry.body, baseUrl, deps, { pushToken });
    const result: ImportResult = {
      name: entry.name,
      status: "created",
      id: created.id,
      type: created.type,
      notes,
    };
    if ("push_url" in created) result.push_url = created.push_url;
    return result;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const details = error.details.errors ? JSON.stringify(error.details.errors) : error.code;
    return { name: entry.name, status: "failed", reason: details } satisfies ImportResult;
  }
}

function printLines(results: ImportResult[]) {
  for (const r of results) {
    const what =
      r.status === "created"
        ? `${r.id} (${[r.type, r.push_url].filter(Boolean).join(" ")})`
        : "type" in r
          ? `(${r.type})`
          : `(${r.reason})`;
    console.log(`${r.status} ${r.name} ${what}`);
    for (const note of "notes" in r ? r.notes : []) console.log(`  ${note}`);
  }
}

/** `--org`, or the data dir's only organization. */
async function organizationOf(ctx: AdminContext, name: string | undefined) {
  if (name !== undefined)
    return (await findOrganization(ctx.store, name)) ?? fail(`no organization "${name}"`);
  const all = await ctx.store.listOrganizations();
  if (all.length !== 1) fail(`give --org: the data dir has ${all.length} organizations`);
  return all[0] as NonNullable<(typeof all)[number]>;
}

/**
 * The monitors service over the admin command's database. No queue runs here: a running server
 * finds the new monitors due at its next poll.
 */
function monitorsDeps(ctx: AdminContext, store: MonitorsStore): MonitorsDeps {
  const sender = createConfiguredSender(ctx.config);
  return {
    store,
    clock: ctx.clock,
    ids: ctx.ids,
    plans: ctx.config.plans,
    urlProblem: (url) => sender.urlProblem(url),
    wake: () => {},
    // An import answers with the new monitors' state; no window names a monitor just created.
    inMaintenance: () => false,
  };
}

/** The database as the store sees it inside the import's open transaction: units run in it. */
function insideOpenTransaction(db: Db): Db {
  const handle = {
    sqlite: db.sqlite,
    orm: db.orm,
    savepoint: () => {
      throw new Error("no savepoint inside the import's transaction");
    },
  };
  return { ...db, tx: (fn) => fn(handle) };
}

/**
 * The database as the PostgreSQL store sees it inside the import's open transaction: its
 * statements run in it, and a unit that would begin a transaction of its own takes a savepoint.
 */
function insideOpenPgTransaction(postgres: PostgresDb, tx: PostgresTx): PostgresDb {
  const sql = Object.assign((...args: Parameters<PostgresTx>) => tx(...args), {
    begin: <T>(fn: (inner: PostgresTx) => Promise<T>) => tx.savepoint(fn),
  });
  return { ...postgres, sql: sql as unknown as PostgresDb["sql"] };
}
