import { lookup, Resolver } from "node:dns/promises";
import type { HeaderPair } from "../http/outbound/outbound.headers.ts";
import type { OutboundSender } from "../http/outbound/outbound.model.ts";
import type { PolicyVerdict } from "../http/outbound/outbound.policy.ts";
import { compileFilters } from "../routing/filters.model.ts";
import { secretConcealments, substituteSecrets } from "../shared/secret-template.ts";
import { probeDocker } from "./monitors.docker.ts";
import {
  type Monitor,
  type MonitorSettings,
  type ProbeResult,
  type RecordType,
  statusExpected,
} from "./monitors.model.ts";
import { probePing } from "./monitors.ping.ts";
import { certificateDaysRemaining } from "./monitors.tls.ts";
import { jsonFilter, parseTcpTarget } from "./monitors.validate.ts";

export interface ProbeDeps {
  outbound: OutboundSender;
  /** The outbound address policy's verdict on one address (tcp targets). */
  checkAddress(address: string): PolicyVerdict;
  /** `{{NAME}}` lookups of the monitor's organization, at send time only. */
  resolveSecrets(organizationId: string): Promise<(name: string) => string | undefined>;
  /** `host:port` of the DNS server dns monitors ask; empty: the system's. */
  dnsResolver: string;
  /** Milliseconds from an arbitrary origin, for response times. */
  now(): number;
  /** The clock's reading (epoch ms), for certificate days. */
  clockNow(): number;
}

const down = (error: string, extra: Partial<ProbeResult> = {}): ProbeResult => ({
  status: "down",
  statusCode: null,
  responseTimeMs: null,
  error,
  tlsDaysRemaining: null,
  ...extra,
});

/** Runs one check of `monitor` now (push monitors are judged by their pushes, not probed). */
export function probe(monitor: Monitor, deps: ProbeDeps): Promise<ProbeResult> {
  if (monitor.type === "http") return probeHttp(monitor, deps);
  if (monitor.type === "tcp") return probeTcp(monitor, deps);
  if (monitor.type === "dns") return probeDns(monitor, deps);
  if (monitor.type === "docker") {
    return probeDocker(monitor.settings, monitor.timeoutSeconds * 1000, deps);
  }
  if (monitor.type === "ping") {
    return probePing(monitor.settings.hostname ?? "", monitor.timeoutSeconds, deps);
  }
  return Promise.resolve(down("no push received within the interval"));
}

async function probeHttp(monitor: Monitor, deps: ProbeDeps): Promise<ProbeResult> {
  const s = monitor.settings;
  // Only a probe that names a secret reads them.
  const named = [s.url ?? "", ...Object.values(s.headers ?? {})].some((t) => t.includes("{{"));
  const lookupSecret = named ? await deps.resolveSecrets(monitor.organizationId) : () => undefined;
  const url = substituteSecrets(s.url ?? "", lookupSecret);
  if (!url.ok) return down(`missing_secret: ${url.missing}`);
  const headers: HeaderPair[] = [];
  for (const [name, value] of Object.entries(s.headers ?? {})) {
    const filled = substituteSecrets(value, lookupSecret);
    if (!filled.ok) return down(`missing_secret: ${filled.missing}`);
    headers.push([name, filled.text]);
  }
  const conceal = secretConcealments([s.url, ...Object.values(s.headers ?? {})], lookupSecret);
  const hide = (text: string) =>
    conceal.reduce((acc, [value, shown]) => acc.split(value).join(shown), text);
  const result = await deps.outbound.send({
    url: url.text,
    method: s.method ?? "GET",
    headers,
    body: s.body ?? null,
    timeoutMs: monitor.timeoutSeconds * 1000,
  });
  const tlsDaysRemaining = url.text.startsWith("https:")
    ? await certificateDaysRemaining(url.text, monitor.timeoutSeconds * 1000, deps)
    : null;
  const timing = {
    statusCode: result.status,
    responseTimeMs: Math.round(result.latencyMs),
    tlsDaysRemaining,
  };
  if (result.status === null) {
    const e = result.error;
    return down(hide(e ? `${e.code}: ${e.message}` : "no answer"), timing);
  }
  const failure = answerFailure(s, result.status, new TextDecoder().decode(result.body));
  if (failure) return down(hide(failure), timing);
  const slow = s.degraded_after_ms != null && timing.responseTimeMs > s.degraded_after_ms;
  return {
    status: slow ? "degraded" : "up",
    ...timing,
    error: slow ? `answered in ${timing.responseTimeMs} ms (over ${s.degraded_after_ms} ms)` : null,
  };
}

/** Why an answer fails the monitor's expectations, or null when it meets them. */
export function answerFailure(s: MonitorSettings, status: number, body: string): string | null {
  const expected = s.expected_status ?? "200-299";
  if (!statusExpected(status, expected)) return `status ${status} not in ${expected}`;
  if (s.keyword) {
    const found = body.includes(s.keyword);
    if (s.keyword_absent && found) return `keyword "${s.keyword}" found`;
    if (!s.keyword_absent && !found) return `keyword "${s.keyword}" not found`;
  }
  if (s.json_path) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return "answer is not JSON";
    }
    const matches = compileFilters([jsonFilter(s.json_path, s.json_expected)]);
    if (!matches({ body: parsed, headers: {}, query: {}, path: {} })) {
      return `JSON at ${s.json_path} does not match ${JSON.stringify(s.json_expected)}`;
    }
  }
  return null;
}

async function probeTcp(monitor: Monitor, deps: ProbeDeps): Promise<ProbeResult> {
  const target = parseTcpTarget(monitor.settings.url ?? "");
  if (!target) return down("invalid tcp target");
  const started = deps.now();
  const timeoutMs = monitor.timeoutSeconds * 1000;
  let address: string;
  try {
    address = (await withTimeout(lookup(target.host), timeoutMs)).address;
  } catch (error) {
    return down(`dns_failure: ${(error as Error).message}`);
  }
  const verdict = deps.checkAddress(address);
  if (!verdict.allowed) return down(`blocked_address: ${verdict.reason}`);
  try {
    await withTimeout(connectOnce(address, target.port), timeoutMs - (deps.now() - started));
    return {
      status: "up",
      statusCode: null,
      responseTimeMs: Math.round(deps.now() - started),
      error: null,
      tlsDaysRemaining: null,
    };
  } catch (error) {
    return down((error as Error).message, { responseTimeMs: Math.round(deps.now() - started) });
  }
}

/** Opens a TCP connection and closes it at once. */
function connectOnce(hostname: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    Bun.connect({
      hostname,
      port,
      socket: {
        open(socket) {
          socket.end();
          resolve();
        },
        data() {},
        error(_socket, error) {
          reject(error);
        },
        connectError(_socket, error) {
          reject(new Error(`connection_refused: ${error.message}`));
        },
      },
    }).catch((error: Error) => reject(new Error(`connection_refused: ${error.message}`)));
  });
}

async function probeDns(monitor: Monitor, deps: ProbeDeps): Promise<ProbeResult> {
  const s = monitor.settings;
  const timeoutMs = monitor.timeoutSeconds * 1000;
  const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
  const started = deps.now();
  try {
    if (deps.dnsResolver !== "") resolver.setServers([deps.dnsResolver]);
    const records = await withTimeout(
      resolveRecords(resolver, s.hostname ?? "", s.record_type ?? "A"),
      timeoutMs,
    );
    const responseTimeMs = Math.round(deps.now() - started);
    if (s.expected && !records.includes(s.expected)) {
      return down(`expected ${s.expected}, got ${records.join(", ") || "no records"}`, {
        responseTimeMs,
      });
    }
    if (records.length === 0) return down("no records", { responseTimeMs });
    return { status: "up", statusCode: null, responseTimeMs, error: null, tlsDaysRemaining: null };
  } catch (error) {
    resolver.cancel();
    const code = (error as { code?: string }).code;
    return down(`dns_failure: ${code ?? (error as Error).message}`, {
      responseTimeMs: Math.round(deps.now() - started),
    });
  }
}

/** The records of one type as comparable text (MX: the exchange; TXT: the joined strings). */
async function resolveRecords(resolver: Resolver, host: string, type: RecordType) {
  switch (type) {
    case "A":
      return resolver.resolve4(host);
    case "AAAA":
      return resolver.resolve6(host);
    case "CNAME":
      return resolver.resolveCname(host);
    case "NS":
      return resolver.resolveNs(host);
    case "MX":
      return (await resolver.resolveMx(host)).map((mx) => mx.exchange);
    case "TXT":
      return (await resolver.resolveTxt(host)).map((parts) => parts.join(""));
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("timeout")), Math.max(0, ms));
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
