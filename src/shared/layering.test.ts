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
