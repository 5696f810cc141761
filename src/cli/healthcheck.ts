import type { Command } from "commander";
import { action, configWithFlags, DATA_DIR_OPTION, fail } from "./cli.common.ts";
import { connectUrl, findLocalServer } from "./local-server.ts";

interface HealthcheckFlags {
  port?: string;
  url?: string;
  dataDir?: string;
  timeout: string;
}

/** `weir healthcheck`: exit 0 when the local server's /healthz answers (Docker HEALTHCHECK). */
export function registerHealthcheck(program: Command): void {
  program
    .command("healthcheck")
    .description("exit 0 when the local server answers /healthz, 1 otherwise")
    .option(
      "-p, --port <port>",
      "port of the local server (default: the running server's, from its data dir; else WEIR_PORT, weir.toml, 8080)",
    )
    .option(...DATA_DIR_OPTION)
    .option("--url <url>", "full health URL to check instead")
    .option("--timeout <ms>", "how long to wait for an answer", "3000")
    .action(
      action(async (flags: HealthcheckFlags) => {
        const url = flags.url ?? `${serverUrl(flags)}/healthz`;
        const response = await fetch(url, {
          signal: AbortSignal.timeout(Number(flags.timeout)),
        }).catch((error: Error) => fail(`${url} did not answer: ${error.message}`));
        if (!response.ok) fail(`${url} answered ${response.status}`);
        console.log(`ok: ${url}`);
      }),
    );
}

/** An explicit --port wins; else where the data dir's server runs. */
function serverUrl(flags: HealthcheckFlags): string {
  const { config } = configWithFlags({ dataDir: flags.dataDir, port: flags.port });
  if (flags.port !== undefined) return connectUrl(config.host, config.port);
  return findLocalServer(config).url;
}
