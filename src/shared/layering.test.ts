import { expect, test } from "bun:test";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { useTempDirs } from "../test-utils/temp-dir.ts";

const REPO = join(import.meta.dir, "../..");
const tempDir = useTempDirs();

/** Lints probe files under a copy of our biome.json; returns "path rule" per diagnostic. */
function lintProbes(files: Record<string, string>): string[] {
  const dir = tempDir();
  copyFileSync(join(REPO, "biome.json"), join(dir, "biome.json"));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  const biome = join(REPO, "node_modules/.bin/biome");
  const run = Bun.spawnSync([biome, "lint", "--vcs-enabled=false", "--reporter=json", "."], {
    cwd: dir,
  });
  const report = JSON.parse(run.stdout.toString()) as {
    diagnostics: Array<{ category: string; location: { path: string } }>;
  };
  return report.diagnostics.map((d) => `${d.location.path} ${d.category}`).sort();
}

const importing = (module: string, name: string) =>
  `import { ${name} } from "${module}";\n\nexport const x = ${name};\n`;

test("services and models cannot import elysia, bun:sqlite or drizzle; routes and repos can", () => {
  const diagnostics = lintProbes({
    "src/probe/probe.service.ts": importing("elysia", "Elysia"),
    "src/probe/probe.model.ts": importing("bun:sqlite", "Database"),
    "src/other/other.service.ts": importing("drizzle-orm", "eq"),
    "src/other/other.model.ts": importing("drizzle-orm/sqlite-core", "sqliteTable"),
    "src/probe/probe.routes.ts": importing("elysia", "Elysia"),
    "src/probe/probe.repo.ts": importing("bun:sqlite", "Database"),
  });
  expect(diagnostics).toEqual([
    "src/other/other.model.ts lint/style/noRestrictedImports",
    "src/other/other.service.ts lint/style/noRestrictedImports",
    "src/probe/probe.model.ts lint/style/noRestrictedImports",
    "src/probe/probe.service.ts lint/style/noRestrictedImports",
  ]);
});

test("a room cannot import another room's service or repo; models, its own files and ports can", () => {
  const diagnostics = lintProbes({
    "src/capture/probe.routes.ts": importing(
      "../endpoints/endpoints.service.ts",
      "requireEndpoint",
    ),
    "src/capture/probe.room.ts": importing("../endpoints/endpoints.repo.ts", "createEndpointsRepo"),
    "src/delivery/probe.worker.ts": importing("../capture/requests.repo.ts", "createRequestsRepo"),
    "src/realtime/probe.service.ts": importing("../capture/capture.service.ts", "storeRequest"),
    "src/capture/allowed.routes.ts": importing("../endpoints/endpoints.model.ts", "webhookUrl"),
    "src/capture/allowed.room.ts": importing("./capture.service.ts", "createCaptureService"),
    "src/delivery/allowed.room.ts": importing("../endpoints/endpoints.room.ts", "EndpointsPorts"),
    "src/capture/allowed.e2e.test.ts": importing("../endpoints/endpoints.repo.ts", "createRepo"),
    "src/app.ts": importing("./endpoints/endpoints.service.ts", "requireEndpoint"),
    "src/cli/allowed.ts": importing("../auth/accounts.service.ts", "registerAccount"),
  });
  expect(diagnostics).toEqual([
    "src/capture/probe.room.ts lint/style/noRestrictedImports",
    "src/capture/probe.routes.ts lint/style/noRestrictedImports",
    "src/delivery/probe.worker.ts lint/style/noRestrictedImports",
    "src/realtime/probe.service.ts lint/style/noRestrictedImports",
  ]);
});

test("src/shared and src/db import no room", () => {
  const diagnostics = lintProbes({
    "src/shared/probe.ts": importing("../capture/capture.model.ts", "isExpired"),
    "src/db/probe.ts": importing("../auth/auth.table.ts", "users"),
    "src/shared/allowed.ts": importing("./clock.ts", "isoAt"),
    "src/db/allowed.ts": importing("../shared/errors.ts", "AppError"),
    "src/shared/allowed.test.ts": importing("../test-utils/poll.ts", "pollUntil"),
  });
  expect(diagnostics).toEqual([
    "src/db/probe.ts lint/style/noRestrictedImports",
    "src/shared/probe.ts lint/style/noRestrictedImports",
  ]);
});

test("a service stays framework-free and still cannot reach another room's repo", () => {
  const diagnostics = lintProbes({
    "src/probe/probe.service.ts": `import { Elysia } from "elysia";\nimport { createAuthRepo } from "../auth/auth.repo.ts";\n\nexport const x = [Elysia, createAuthRepo];\n`,
  });
  expect(diagnostics).toEqual([
    "src/probe/probe.service.ts lint/style/noRestrictedImports",
    "src/probe/probe.service.ts lint/style/noRestrictedImports",
  ]);
});

test("bun:sqlite and drizzle stay in repos, tables and src/db: no SQLite-only code elsewhere", () => {
  const diagnostics = lintProbes({
    "src/capture/probe.routes.ts": importing("bun:sqlite", "Database"),
    "src/capture/probe.room.ts": importing("drizzle-orm", "eq"),
    "src/delivery/probe.worker.ts": importing("drizzle-orm/sqlite-core", "sqliteTable"),
    "src/http/probe.routes.ts": importing("bun:sqlite", "Database"),
    "src/probe.ts": importing("bun:sqlite", "Database"),
    "src/capture/allowed.repo.ts": importing("bun:sqlite", "Database"),
    "src/capture/allowed.table.ts": importing("drizzle-orm/sqlite-core", "sqliteTable"),
    "src/db/allowed.ts": importing("bun:sqlite", "Database"),
    "src/cli/allowed.ts": importing("bun:sqlite", "Database"),
  });
  expect(diagnostics).toEqual([
    "src/capture/probe.room.ts lint/style/noRestrictedImports",
    "src/capture/probe.routes.ts lint/style/noRestrictedImports",
    "src/delivery/probe.worker.ts lint/style/noRestrictedImports",
    "src/http/probe.routes.ts lint/style/noRestrictedImports",
    "src/probe.ts lint/style/noRestrictedImports",
  ]);
});

test("services take the store: no dialect's implementation in a service, none across rooms", () => {
  const diagnostics = lintProbes({
    "src/probe/probe.service.ts": importing("./probe.postgres.ts", "createProbePostgresStore"),
    "src/other/other.service.ts": importing("./other.sqlite.ts", "createOtherSqliteStore"),
    "src/capture/probe.room.ts": importing("../monitors/monitors.postgres.ts", "createStore"),
    "src/delivery/probe.routes.ts": importing("../monitors/monitors.sqlite.ts", "createStore"),
    "src/probe/allowed.service.ts": importing("./probe.store.ts", "ProbeStore"),
    "src/probe/allowed.room.ts": importing("./probe.postgres.ts", "createProbePostgresStore"),
    "src/probe/allowed.postgres.ts": importing("bun", "SQL"),
  });
  expect(diagnostics).toEqual([
    "src/capture/probe.room.ts lint/style/noRestrictedImports",
    "src/delivery/probe.routes.ts lint/style/noRestrictedImports",
    "src/other/other.service.ts lint/style/noRestrictedImports",
    "src/probe/probe.service.ts lint/style/noRestrictedImports",
  ]);
});

test("a store file is the interface alone: no client, no implementation", () => {
  const diagnostics = lintProbes({
    "src/probe/probe.store.ts": importing("bun", "SQL"),
    "src/other/other.store.ts": importing("./other.postgres.ts", "createOtherPostgresStore"),
    "src/third/third.store.ts": importing("bun:sqlite", "Database"),
    "src/fourth/fourth.store.ts": importing("../monitors/monitors.repo.ts", "MonitorColumns"),
    "src/probe/allowed.store.ts": importing("./probe.model.ts", "Probe"),
  });
  expect(diagnostics).toEqual([
    "src/fourth/fourth.store.ts lint/style/noRestrictedImports",
    "src/other/other.store.ts lint/style/noRestrictedImports",
    "src/probe/probe.store.ts lint/style/noRestrictedImports",
    "src/third/third.store.ts lint/style/noRestrictedImports",
  ]);
});
