#!/usr/bin/env bun
import { Command } from "commander";
import { registerAdmin } from "./cli/admin.ts";
import { registerBackup } from "./cli/backup.ts";
import { registerConfig } from "./cli/config.ts";
import { registerDoctor } from "./cli/doctor.ts";
import { registerHealthcheck } from "./cli/healthcheck.ts";
import { registerMigrate } from "./cli/migrate.ts";
import { registerMonitors } from "./cli/monitors.ts";
import { registerSandboxSelftest } from "./cli/sandbox-selftest.ts";
import { registerServe } from "./cli/serve.ts";
import { registerTail } from "./cli/tail.ts";
import { registerVersion } from "./cli/version.ts";
import { VERSION } from "./shared/version.ts";

/** The `weir` command line; one file per command under src/cli/. */
export function buildProgram(): Command {
  const program = new Command("weir")
    .description(
      "Weir: self-hosted webhook capture, live inspection and routing in one binary (permanent capture URLs, forwards, replay, weir tail; sources, bridges and destinations)",
    )
    .version(VERSION, "-v, --version", "print the version")
    .showHelpAfterError()
    .addHelpText(
      "after",
      `
Every command works on one data dir: --data-dir DIR, or WEIR_DATA_DIR, or data_dir in
/etc/weir/weir.toml (written by install.sh --systemd); default ./weir-data.

Routing (sources, bridges, destinations, filters, transformations, secrets), issues, alert
rules and uptime monitors are managed over the HTTP API: see docs/routing.md, docs/issues.md,
docs/alerts.md and docs/monitors.md.
Coming, not in this version yet: endpoint automations and status pages.`,
    );
  for (const register of [
    registerServe,
    registerMigrate,
    registerVersion,
    registerConfig,
    registerHealthcheck,
    registerDoctor,
    registerBackup,
    registerAdmin,
    registerMonitors,
    registerTail,
    registerSandboxSelftest,
  ]) {
    register(program);
  }
  return program;
}

/**
 * `serve` is the default command, so commander would take `weir nonsense` as an argument to it
 * and start a server. A first word that names no command is refused in one line instead.
 */
export function unknownCommand(program: Command, args: string[]): string | undefined {
  const first = args[0];
  if (first === undefined || first.startsWith("-")) return undefined;
  const known = program.commands.flatMap((c) => [c.name(), ...c.aliases()]);
  return known.includes(first) || first === "help" ? undefined : first;
}

if (import.meta.main) {
  const program = buildProgram();
  const unknown = unknownCommand(program, process.argv.slice(2));
  if (unknown !== undefined) {
    process.stderr.write(`weir: unknown command "${unknown}" (see weir --help)\n`);
    process.exit(1);
  }
  await program.parseAsync(process.argv);
}
