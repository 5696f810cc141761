import type { Check } from "./doctor.checks.ts";
import type { LocalServer } from "./local-server.ts";

/**
 * Whether the data dir's server answers /healthz where it runs: the address its lock file
 * records (flags included), else where config puts it. Not running is a warning, not a failure:
 * doctor is also run with the server stopped, e.g. before an upgrade.
 */
export async function checkServer(server: LocalServer, timeoutMs = 2000): Promise<Check> {
  const url = `${server.url}/healthz`;
  const answer = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) }).catch(() => null);
  const who = server.pid === undefined ? "weir" : `weir (pid ${server.pid})`;
  if (answer?.ok)
    return { name: "server", status: "ok", detail: `${who} answers at ${server.url}` };
  const heard = answer ? `answered ${answer.status}` : "did not answer";
  const started = server.from === "lock" ? `, where ${who} last started` : "";
  return { name: "server", status: "warn", detail: `not running: ${url} ${heard}${started}` };
}
