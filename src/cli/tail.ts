import type { Command } from "commander";
import type { OutboundSender } from "../http/outbound/outbound.model.ts";
import { action, configWithFlags, DATA_DIR_OPTION, fail } from "./cli.common.ts";
import { findLocalServer } from "./local-server.ts";
import { createTailApi, type TailApi, type TailEndpoint } from "./tail.api.ts";
import { requestJson, requestLine, type TailedRequest } from "./tail.format.ts";
import { createTailSender, FORWARDED_HEADER, forwardRequest } from "./tail.forward.ts";
import { openTailStream, type PushedRequest } from "./tail.stream.ts";

interface TailFlags {
  server?: string;
  dataDir?: string;
  token?: string;
  forward?: string;
  json?: boolean;
}

/**
 * `weir tail ENDPOINT --server URL --token KEY [--forward URL] [--json]` (decisions.md §1):
 * streams an endpoint's captures live and, with `--forward`, re-sends each to a local app — the
 * self-hosted answer to tunnelling tools.
 */
export function registerTail(program: Command): void {
  program
    .command("tail")
    .description(
      "stream an endpoint's captured requests live; --forward re-sends them to a local URL",
    )
    .argument("<endpoint>", "the endpoint's slug or id")
    .option(
      "--server <url>",
      "Weir's address (env WEIR_SERVER; default: the server running on the data dir)",
    )
    .option(...DATA_DIR_OPTION)
    .option("--token <key>", "an API key or login token (env WEIR_TOKEN)")
    .option("--forward <url>", "re-send every request to this URL (e.g. http://localhost:3000)")
    .option("--json", "print one JSON object per request instead of a line")
    .action(action((endpoint: string, flags: TailFlags) => tail(endpoint, flags)));
}

async function tail(idOrSlug: string, flags: TailFlags): Promise<void> {
  const server = flags.server ?? process.env.WEIR_SERVER ?? localServerUrl(flags);
  const token = flags.token ?? process.env.WEIR_TOKEN ?? fail("--token is required");
  if (flags.forward) checkForwardUrl(flags.forward);
  const api = createTailApi(server, token);
  const endpoint = await api.resolveEndpoint(idOrSlug);
  const forwarding = flags.forward ? ` → ${flags.forward}` : "";
  process.stderr.write(`tailing ${endpoint.webhook_url}${forwarding} (Ctrl-C to stop)\n`);
  // One sender for the whole run, so connections to the local app are reused.
  await streamUntilStopped(api, endpoint, flags, createTailSender());
}

/** The server of this machine's data dir, where it runs (its lock file) or would (config). */
function localServerUrl(flags: TailFlags): string {
  return findLocalServer(configWithFlags({ dataDir: flags.dataDir }).config).url;
}

function checkForwardUrl(url: string): void {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === "http:" || parsed.protocol === "https:") return;
  } catch {}
  fail(`--forward must be an http(s) URL, got "${url}"`);
}

/** Runs the stream until Ctrl-C (resolves: exit 0) or a fatal condition (rejects: exit 1). */
function streamUntilStopped(
  api: TailApi,
  endpoint: TailEndpoint,
  flags: TailFlags,
  sender: OutboundSender,
): Promise<void> {
  const aborter = new AbortController();
  let queue = Promise.resolve();
  let stopped = false;
  return new Promise((resolve, reject) => {
    const stop = (error?: Error) => {
      if (stopped) return;
      stopped = true;
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      stream.close();
      aborter.abort();
      queue.finally(() => (error ? reject(error) : resolve()));
    };
    const onSignal = () => stop();
    const stream = openTailStream({
      server: api.base,
      token: api.token,
      endpointId: endpoint.id,
      onRequest: (pushed) => {
        // One at a time, in capture order, even when the local app is slow.
        queue = queue
          .then(() => report(api, pushed, flags, { signal: aborter.signal, sender }))
          .catch((error) => {
            if (!aborter.signal.aborted)
              process.stderr.write(`weir: ${(error as Error).message}\n`);
          });
      },
      onNotice: (message) => process.stderr.write(`${message}\n`),
      onFatal: (message) => {
        try {
          fail(message);
        } catch (error) {
          stop(error as Error);
        }
      },
      tokenAccepted: () => api.tokenAccepted(endpoint.id),
    });
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
}

async function report(
  api: TailApi,
  pushed: PushedRequest,
  flags: TailFlags,
  forwarding: { signal: AbortSignal; sender: OutboundSender },
): Promise<void> {
  const { signal } = forwarding;
  const stored = await api.fetchRequest(pushed.endpoint_id, pushed.request_id);
  if (signal.aborted) return;
  let forward = null;
  // A request that already went through a Weir forward is never sent again (loop guard).
  if (flags.forward && stored && !stored.headers[FORWARDED_HEADER]) {
    forward = await forwardRequest(flags.forward, stored, forwarding);
    if (signal.aborted) return;
  }
  const tailed: TailedRequest = { pushed, stored, forward };
  process.stdout.write(`${flags.json ? requestJson(tailed) : requestLine(tailed)}\n`);
}
