/** ServerSpecs shared by scenarios: the raw Bun.serve baseline and the Weir server. */
import { join } from "node:path";
import type { LaunchContext, ServerSpec } from "./types.ts";

/** The raw Bun.serve baseline (baseline-server.ts), started as its own process. */
export function baselineServer(ctx: LaunchContext): ServerSpec {
  return {
    command: [
      ctx.bunPath,
      join(import.meta.dir, "baseline-server.ts"),
      "--port",
      String(ctx.port),
      "--host",
      "127.0.0.1",
    ],
    healthPath: "/",
  };
}

/**
 * `weir serve` on the launch's port with a fresh data dir. Logs at error level (logging every
 * request would measure the logger) and capture rate limits off (they would turn load into 429s).
 */
export function weirServer(ctx: LaunchContext, env: Record<string, string> = {}): ServerSpec {
  return {
    command: [
      ...ctx.weirCommand,
      "serve",
      "--port",
      String(ctx.port),
      "--host",
      "127.0.0.1",
      "--data-dir",
      ctx.dir,
    ],
    env: { WEIR_LOG_LEVEL: "error", WEIR_CAPTURE_RATE_LIMIT: "off", ...env },
    healthPath: "/healthz",
  };
}
