import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { PolicyVerdict } from "../http/outbound/outbound.policy.ts";
import type { MonitorSettings, ProbeResult } from "./monitors.model.ts";

/**
 * `ping` monitors (decisions.md §15): one ICMP echo through the host's own `ping` program, as
 * Weir holds no raw-socket privilege itself. It is spawned with an argument array (no shell)
 * on an address already resolved and judged by the outbound address policy.
 */

export const PING_UNAVAILABLE = "ping is not available on this host";
/** Letters, digits, dots and dashes, never leading with a dash: nothing ping could read as a flag. */
const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))*\.?$/;
/** What ping says when it may not open its socket (no setuid bit, no CAP_NET_RAW, a sandbox). */
const NOT_PERMITTED = /not permitted|permission denied|cap_net_raw|socket:|icmp open socket/i;

type Fail = (field: string, message: string) => void;

/** Checks `hostname` strictly (a name or an IP address) and against the address policy. */
export function pingSettings(
  input: Record<string, unknown>,
  urlProblem: (url: string) => string | null,
  fail: Fail,
): MonitorSettings {
  const hostname = typeof input.hostname === "string" ? input.hostname.trim() : "";
  const ip = isIP(hostname);
  if (ip === 0 && !HOSTNAME.test(hostname)) {
    fail("hostname", "must be a host name such as router.lan or an IP address");
    return { hostname };
  }
  const problem = urlProblem(`http://${ip === 6 ? `[${hostname}]` : hostname}/`);
  if (problem) fail("hostname", problem);
  return { hostname };
}

export interface PingDeps {
  /** The outbound address policy's verdict on one address. */
  checkAddress(address: string): PolicyVerdict;
}

const outcome = (status: ProbeResult["status"], ms: number | null, error: string | null) => ({
  status,
  statusCode: null,
  responseTimeMs: ms,
  error,
  tlsDaysRemaining: null,
});

/** Up when one echo comes back within the timeout, with the round trip ping measured. */
export async function probePing(
  hostname: string,
  timeoutSeconds: number,
  deps: PingDeps,
): Promise<ProbeResult> {
  // Looked up at each check: ping may be installed (or removed) while Weir runs.
  const program = Bun.which("ping");
  if (!program) return outcome("down", null, PING_UNAVAILABLE);
  let address = hostname;
  if (isIP(hostname) === 0) {
    try {
      address = (await withDeadline(lookup(hostname), timeoutSeconds * 1000)).address;
    } catch (error) {
      const code = (error as { code?: string }).code;
      return outcome("down", null, `dns_failure: ${code ?? (error as Error).message}`);
    }
  }
  const verdict = deps.checkAddress(address);
  if (!verdict.allowed) return outcome("down", null, `blocked_address: ${verdict.reason}`);
  const run = await runPing(program, address, timeoutSeconds);
  if (run.exitCode === 0) return outcome("up", roundTripMs(run.stdout), null);
  const said = firstLine(run.stderr) || firstLine(run.stdout);
  if (NOT_PERMITTED.test(run.stderr)) return outcome("down", null, `${PING_UNAVAILABLE}: ${said}`);
  if (run.exitCode === 1) {
    return outcome("down", null, `no reply from ${hostname} within ${timeoutSeconds} s`);
  }
  return outcome("down", null, `ping failed: ${said || `exit code ${run.exitCode}`}`);
}

async function runPing(program: string, address: string, timeoutSeconds: number) {
  const proc = Bun.spawn([program, "-c", "1", "-W", String(timeoutSeconds), address], {
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
    // The C locale keeps ping's "time=0.04 ms" parseable whatever the host's language.
    env: { PATH: process.env.PATH ?? "", LC_ALL: "C" },
  });
  // A ping that outlives its own -W (a slow name lookup inside it) is ended here.
  const guard = setTimeout(() => proc.kill(), (timeoutSeconds + 2) * 1000);
  try {
    const [stdout, stderr, exitCode] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    return { stdout, stderr, exitCode };
  } finally {
    clearTimeout(guard);
  }
}

/** The round trip ping printed: `time=0.045 ms` (iputils, busybox), else the summary's average. */
export function roundTripMs(output: string): number | null {
  const reply = /time[=<]\s*([\d.]+)\s*ms/.exec(output);
  const summary = /min\/avg\/max[^=]*=\s*[\d.]+\/([\d.]+)\//.exec(output);
  const ms = Number((reply ?? summary)?.[1]);
  return Number.isFinite(ms) && (reply ?? summary) ? Math.round(ms) : null;
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("timeout")), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

const firstLine = (text: string) => text.trim().split("\n")[0]?.trim() ?? "";
