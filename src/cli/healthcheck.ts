import type { Command } from "commander";
import { action, configWithFlags, fail } from "./cli.common.ts";

/** `weir healthcheck`: exit 0 when the local server's /healthz answers (Docker HEALTHCHECK). */
export function registerHealthcheck(program: Command): void {
  program
    .command("healthcheck")
    .description("exit 0 when the local server answers /healthz, 1 otherwise")
    .option("-p, --port <port>", "port of the local server (env WEIR_PORT, default 8080)")
    .option("--url <url>", "full health URL to check instead")
    .option("--timeout <ms>", "how long to wait for an answer", "3000")
    .action(
      action(async (flags: { port?: string; url?: string; timeout: string }) => {
        const port = flags.url ? 0 : configWithFlags({ port: flags.port }).config.port;
        const url = flags.url ?? `http://127.0.0.1:${port}/healthz`;
        const response = await fetch(url, {
          signal: AbortSignal.timeout(Number(flags.timeout)),
        }).catch((error: Error) => fail(`${url} did not answer: ${error.message}`));
        if (!response.ok) fail(`${url} answered ${response.status}`);
        console.log(`ok: ${url}`);
      }),
    );
}
