#!/usr/bin/env bun
import { Command } from "commander";
import { registerAdmin } from "./cli/admin.ts";
import { registerBackup } from "./cli/backup.ts";
import { registerConfig } from "./cli/config.ts";
import { registerDoctor } from "./cli/doctor.ts";
import { registerHealthcheck } from "./cli/healthcheck.ts";
import { registerMigrate } from "./cli/migrate.ts";
import { registerSandboxSelftest } from "./cli/sandbox-selftest.ts";
import { registerServe } from "./cli/serve.ts";
import { registerTail } from "./cli/tail.ts";
import { registerVersion } from "./cli/version.ts";
import { VERSION } from "./shared/version.ts";

/** The `weir` command line; one file per command under src/cli/. */
export function buildProgram(): Command {
  const program = new Command("weir")
    .description(
      "Weir: self-hosted webhook capture, routing, delivery and monitoring in one binary",
    )
    .version(VERSION, "-v, --version", "print the version")
    .showHelpAfterError();
  for (const register of [
    registerServe,
    registerMigrate,
    registerVersion,
    registerConfig,
    registerHealthcheck,
    registerDoctor,
    registerBackup,
    registerAdmin,
    registerTail,
    registerSandboxSelftest,
  ]) {
    register(program);
  }
  return program;
}

if (import.meta.main) await buildProgram().parseAsync(process.argv);
