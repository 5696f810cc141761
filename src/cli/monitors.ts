import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { findOrganization } from "../auth/accounts.service.ts";
import { createConfiguredSender } from "../deps.ts";
import { createChecksRepo } from "../monitors/checks.repo.ts";
import { createDependenciesRepo } from "../monitors/dependencies.repo.ts";
import { type ImportEntry, importEntries } from "../monitors/monitors.import.model.ts";
import { createMonitorsRepo } from "../monitors/monitors.repo.ts";
import { createMonitor, type MonitorsDeps } from "../monitors/monitors.service.ts";
import { AppError } from "../shared/errors.ts";
import { type AdminContext, withAdminData } from "./admin.data.ts";
import { action, DATA_DIR_OPTION, fail, printJson } from "./cli.common.ts";

type ImportResult =
  | { name: string; status: "created"; id: string; notes: string[] }
  | { name: string; status: "skipped" | "failed"; reason: string };

interface ImportFlags {
  dataDir?: string;
  json?: boolean;
  org: string;
}

/** `weir monitors import FILE` (decisions.md §13): works on the data dir, no server needed. */
export function registerMonitors(program: Command): void {
  program
    .command("monitors")
    .description("manage uptime monitors on the data dir")
    .command("import")
    .description("create monitors from a JSON list (API bodies) or a Gatus file (endpoints:)")
    .argument("<file>", "a .json, .yaml or .yml file")
    .requiredOption("--org <id-or-name>", "the organization the monitors belong to")
    .option(...DATA_DIR_OPTION)
    .option("--json", "print the result as JSON")
    .action(action(importMonitors));
}

function parseFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return fail(`cannot read ${file}`);
  }
  try {
    return /\.ya?ml$/i.test(file) ? Bun.YAML.parse(text) : JSON.parse(text);
  } catch (error) {
    return fail(
      `${file} is not valid ${/\.ya?ml$/i.test(file) ? "YAML" : "JSON"}: ${(error as Error).message}`,
    );
  }
}

async function importMonitors(file: string, flags: ImportFlags) {
  let entries: ImportEntry[];
  try {
    entries = importEntries(parseFile(file));
  } catch (error) {
    return fail((error as Error).message);
  }
  await withAdminData(flags, (ctx) => {
    const org = findOrganization(ctx.repo, flags.org) ?? fail(`no organization "${flags.org}"`);
    const deps = monitorsDeps(ctx);
    const tenant = { organizationId: org.id, plan: org.plan };
    const results = entries.map((entry): ImportResult => {
      if ("skipped" in entry) return { name: entry.name, status: "skipped", reason: entry.skipped };
      try {
        const created = createMonitor(tenant, entry.body, ctx.config.base_url, deps);
        return { name: entry.name, status: "created", id: created.id, notes: entry.notes };
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        const details = error.details.errors ? JSON.stringify(error.details.errors) : error.code;
        return { name: entry.name, status: "failed", reason: details };
      }
    });
    if (flags.json) return printJson({ organization_id: org.id, monitors: results });
    for (const r of results) {
      console.log(`${r.status} ${r.name}${r.status === "created" ? ` ${r.id}` : ` (${r.reason})`}`);
      for (const note of r.status === "created" ? r.notes : []) console.log(`  ${note}`);
    }
  });
}

/**
 * The monitors service over the admin command's database. No queue runs here: a running server
 * finds the new monitors due at its next poll.
 */
function monitorsDeps(ctx: AdminContext): MonitorsDeps {
  const sender = createConfiguredSender(ctx.config);
  return {
    repo: createMonitorsRepo(ctx.db),
    checks: createChecksRepo(ctx.db),
    dependencies: createDependenciesRepo(ctx.db),
    tx: (fn) => ctx.db.tx(fn),
    clock: ctx.clock,
    ids: ctx.ids,
    plans: ctx.config.plans,
    urlProblem: (url) => sender.urlProblem(url),
    wake: () => {},
  };
}
