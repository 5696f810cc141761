import type { OutboundSender } from "../http/outbound/outbound.model.ts";
import type { PolicyVerdict } from "../http/outbound/outbound.policy.ts";
import type { MonitorSettings, ProbeResult } from "./monitors.model.ts";

/**
 * `docker` monitors (decisions.md §15): a container's state as the Docker Engine API tells it
 * (`GET /containers/{id}/json`), over the daemon's unix socket or its plain-HTTP tcp port.
 */

export const DEFAULT_DOCKER_HOST = "unix:///var/run/docker.sock";
/** Docker's own rule for names, which ids (hex) also meet. */
const CONTAINER = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,254}$/;
const UNIX_HOST = /^unix:\/\/(\/[^\0]{1,1000})$/;

const LOOPBACK = ["127.0.0.1", "::1"];

type Fail = (field: string, message: string) => void;

/** The daemon a `docker_host` names: a socket path, or the host and port of its tcp API. */
type Daemon = { socket: string } | { host: string; port: number };

/** Parses `unix:///path` or `tcp://host:port`; null when it is neither. */
export function parseDockerHost(text: string): Daemon | null {
  const unix = UNIX_HOST.exec(text);
  if (unix) return { socket: unix[1] as string };
  if (!/^tcp:\/\/[^/?#]+\/?$/.test(text) || !URL.canParse(text)) return null;
  const url = new URL(text);
  const port = Number(url.port);
  if (url.hostname === "" || !Number.isInteger(port) || port < 1) return null;
  return { host: url.hostname, port };
}

/** Checks `container` and `docker_host`; a tcp daemon must pass the outbound address policy. */
export function dockerSettings(
  input: Record<string, unknown>,
  urlProblem: (url: string) => string | null,
  fail: Fail,
): MonitorSettings {
  const container = typeof input.container === "string" ? input.container.trim() : "";
  if (!CONTAINER.test(container)) {
    fail("container", "must be a container name or id (letters, digits, _ . -)");
  }
  const dockerHost =
    typeof input.docker_host === "string" && input.docker_host.trim() !== ""
      ? input.docker_host.trim()
      : DEFAULT_DOCKER_HOST;
  const daemon = parseDockerHost(dockerHost);
  if (!daemon) {
    fail("docker_host", "must be unix:///path/to/docker.sock or tcp://host:port");
  } else if ("socket" in daemon) {
    const problem = urlProblem("http://localhost/");
    if (problem) fail("docker_host", `a local socket is loopback: ${problem}`);
  } else {
    const problem = urlProblem(`http://${hostForUrl(daemon.host)}:${daemon.port}/`);
    if (problem) fail("docker_host", problem);
  }
  return { container, docker_host: dockerHost };
}

const hostForUrl = (host: string) =>
  host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;

export interface DockerProbeDeps {
  outbound: OutboundSender;
  /** The outbound address policy's verdict on one address; a local socket counts as loopback. */
  checkAddress(address: string): PolicyVerdict;
  now(): number;
}

type Answer = { status: number; body: string; ms: number } | { error: string; ms: number };

/**
 * Up while the container runs and, when it has a health check, is healthy; degraded while that
 * check is still `starting`; down otherwise (stopped, unhealthy, unknown, daemon unreachable).
 */
export async function probeDocker(
  settings: MonitorSettings,
  timeoutMs: number,
  deps: DockerProbeDeps,
): Promise<ProbeResult> {
  const container = settings.container ?? "";
  const daemon = parseDockerHost(settings.docker_host ?? DEFAULT_DOCKER_HOST);
  if (!daemon) return result("down", null, `invalid docker_host ${settings.docker_host}`);
  const path = `/containers/${encodeURIComponent(container)}/json`;
  const answer =
    "socket" in daemon
      ? await viaSocket(daemon.socket, path, timeoutMs, deps)
      : await viaTcp(daemon, path, timeoutMs, deps);
  if ("error" in answer) return result("down", answer.ms, answer.error);
  if (answer.status === 404) return result("down", answer.ms, `no container ${container}`);
  if (answer.status !== 200) {
    return result(
      "down",
      answer.ms,
      `docker answered ${answer.status}: ${answer.body.slice(0, 200)}`,
    );
  }
  return judgeState(answer.body, answer.ms);
}

type State = { Running?: unknown; Status?: unknown; Health?: { Status?: unknown } };

/** The verdict on an inspect answer's `State`. */
export function judgeState(body: string, ms: number): ProbeResult {
  let state: State | undefined;
  try {
    state = (JSON.parse(body) as { State?: State }).State;
  } catch {
    state = stateFromCutAnswer(body);
    if (!state) return result("down", ms, "docker's answer is not JSON");
  }
  if (state?.Running !== true) {
    return result(
      "down",
      ms,
      `container is ${typeof state?.Status === "string" ? state.Status : "not running"}`,
    );
  }
  const health = state.Health?.Status;
  if (health === "starting") return result("degraded", ms, "container health check is starting");
  if (health === "unhealthy") return result("down", ms, "container is unhealthy");
  return result("up", ms, null);
}

/**
 * An inspect answer longer than the outbound sender reads (many mounts, long health-check logs)
 * arrives cut. `State` comes early in it, and `Health.Status` before its log, so they are read
 * from the text.
 */
function stateFromCutAnswer(body: string): State | undefined {
  const opening = /"State"\s*:\s*\{([^{}]*)/.exec(body)?.[1];
  const running = opening && /"Running"\s*:\s*(true|false)/.exec(opening)?.[1];
  if (!opening || !running) return undefined;
  const status = /"Status"\s*:\s*"(\w+)"/.exec(opening)?.[1];
  const health = /"State"\s*:\s*\{[^{}]*"Health"\s*:\s*\{\s*"Status"\s*:\s*"(\w+)"/.exec(body)?.[1];
  return {
    Running: running === "true",
    Status: status,
    Health: health ? { Status: health } : undefined,
  };
}

const result = (status: ProbeResult["status"], ms: number | null, error: string | null) => ({
  status,
  statusCode: null,
  responseTimeMs: ms,
  error,
  tlsDaysRemaining: null,
});

/**
 * A local socket is asked directly with fetch's `unix` option. It has no address of its own, but
 * it reaches this host as loopback does: where the operator denies loopback (a shared instance),
 * a tenant may not reach the host's daemon, or any other socket, by naming its path.
 */
async function viaSocket(socket: string, path: string, timeoutMs: number, deps: DockerProbeDeps) {
  const denied = LOOPBACK.map(deps.checkAddress).find((verdict) => !verdict.allowed);
  if (denied && !denied.allowed) {
    return { error: `blocked_address: docker socket ${socket}: ${denied.reason}`, ms: 0 };
  }
  const started = deps.now();
  const ms = () => Math.round(deps.now() - started);
  try {
    const response = await fetch(`http://docker${path}`, {
      unix: socket,
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: response.status, body: await readCapped(response), ms: ms() } satisfies Answer;
  } catch (error) {
    const reason = (error as Error).name === "TimeoutError" ? "timeout" : (error as Error).message;
    return { error: `docker socket ${socket}: ${reason}`, ms: ms() } satisfies Answer;
  }
}

/** An inspect answer is read as far as the outbound sender reads one (judgeState reads a cut one). */
const SOCKET_READ_LIMIT = 65_536;

/** The answer's first SOCKET_READ_LIMIT bytes: a socket that streams forever costs no more. */
async function readCapped(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < SOCKET_READ_LIMIT) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  if (size >= SOCKET_READ_LIMIT) await reader.cancel().catch(() => {});
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, SOCKET_READ_LIMIT));
}

/** A daemon over tcp is somewhere else: the one outbound sender (and its address policy). */
async function viaTcp(
  daemon: { host: string; port: number },
  path: string,
  timeoutMs: number,
  deps: DockerProbeDeps,
): Promise<Answer> {
  const sent = await deps.outbound.send({
    url: `http://${hostForUrl(daemon.host)}:${daemon.port}${path}`,
    method: "GET",
    timeoutMs,
  });
  const ms = Math.round(sent.latencyMs);
  if (sent.status === null) {
    const e = sent.error;
    return { error: e ? `${e.code}: ${e.message}` : "no answer", ms };
  }
  return { status: sent.status, body: new TextDecoder().decode(sent.body), ms };
}
