#!/usr/bin/env bun
/**
 * Builds the web UI (ui/index.html → Preact + the phoenix client + CSS) into ui/dist with hashed
 * asset names under /assets/, which the server caches for a year; index.html itself is never
 * cached. The one way the UI is built: scripts/build, the smoke test and the browser tests call it.
 *
 * Usage: bun scripts/build-ui.ts [--outdir DIR]
 */
import { rmSync } from "node:fs";
import { join, relative } from "node:path";
import { gzipSync } from "node:zlib";

const root = join(import.meta.dir, "..");

export interface UiBuildFile {
  path: string;
  bytes: number;
  gzipBytes: number;
}

/** Builds the UI into `outdir` (emptied first); throws with the bundler's messages on failure. */
export async function buildUi(outdir = join(root, "ui/dist")): Promise<UiBuildFile[]> {
  rmSync(outdir, { recursive: true, force: true });
  const result = await Bun.build({
    entrypoints: [join(root, "ui/index.html")],
    outdir,
    minify: true,
    // Absolute asset URLs: index.html is also the SPA fallback for nested paths like /endpoints/x.
    publicPath: "/",
    naming: {
      entry: "[dir]/[name].[ext]",
      chunk: "assets/[name]-[hash].[ext]",
      asset: "assets/[name]-[hash].[ext]",
    },
    define: { "process.env.NODE_ENV": JSON.stringify("production") },
  });
  if (!result.success) {
    throw new Error(`UI build failed:\n${result.logs.map((log) => String(log)).join("\n")}`);
  }
  const files: UiBuildFile[] = [];
  for (const output of result.outputs) {
    const bytes = new Uint8Array(await output.arrayBuffer());
    files.push({
      path: relative(outdir, output.path),
      bytes: bytes.byteLength,
      gzipBytes: gzipSync(bytes, { level: 9 }).byteLength,
    });
  }
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

async function main(): Promise<void> {
  const at = process.argv.indexOf("--outdir");
  const outdir = at > 0 ? process.argv[at + 1] : undefined;
  const files = await buildUi(outdir);
  let gzip = 0;
  for (const file of files) {
    gzip += file.gzipBytes;
    console.log(`  ${file.path}  ${file.bytes} B (${file.gzipBytes} B gzip)`);
  }
  console.log(`build-ui: ${files.length} file(s), ${(gzip / 1024).toFixed(1)} KiB gzip in total`);
}

if (import.meta.main) {
  main().catch((error: unknown) => {
    process.stderr.write(`build-ui: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
