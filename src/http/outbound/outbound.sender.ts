import { lookup as dnsLookup } from "node:dns/promises";
import * as http from "node:http";
import * as https from "node:https";
import type { LookupFunction } from "node:net";
import { classifyOutcome } from "./outbound.classify.ts";
import { type HeaderPair, wireHeaders, withoutCredentials } from "./outbound.headers.ts";
import {
  BlockedAddressError,
  type OutboundRequest,
  type OutboundResult,
  type OutboundSender,
  OutboundTimeoutError,
} from "./outbound.model.ts";
import type { OutboundPolicy } from "./outbound.policy.ts";
import { type CappedRead, readCapped } from "./outbound.read.ts";

/** A resolver: every address a name has (tests pass one that answers what they need). */
export type Resolve = (hostname: string) => Promise<{ address: string; family: number }[]>;

export interface SenderOptions {
  policy: OutboundPolicy;
  /** Default deadline of one send (headers and the capped body). */
  timeoutMs: number;
  /** Bytes of an answer's body kept (decisions.md §6: 64 KiB). */
  bodyLimit?: number;
  resolve?: Resolve;
  /** Milliseconds from an arbitrary origin, for latency (performance.now by default). */
  now?: () => number;
}

const DEFAULT_BODY_LIMIT = 65_536;
const systemResolve: Resolve = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Builds the one outbound sender. It speaks through node:http(s), not fetch: Bun's fetch always
 * adds `User-Agent: Bun/…`, `Accept: *\/*` and `Accept-Encoding: gzip, deflate, br, zstd` and
 * offers no hook on the resolved address, while node:http sends only what it is given (plus its
 * own `Connection`) and takes a `lookup` through which every connection's address is checked.
 * Redirects are never followed: a 3xx is an answer like any other.
 */
export function createOutboundSender(options: SenderOptions): OutboundSender {
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const now = options.now ?? (() => performance.now());
  const lookup = checkedLookup(options.policy, options.resolve ?? systemResolve);
  const agents = {
    http: new http.Agent({ keepAlive: true }),
    https: new https.Agent({ keepAlive: true }),
  };

  async function send(request: OutboundRequest): Promise<OutboundResult> {
    const started = now();
    const timeoutMs = request.timeoutMs ?? options.timeoutMs;
    let shownUrl = request.url;
    try {
      const url = new URL(request.url);
      shownUrl = withoutCredentials(url);
      const literal = options.policy.checkUrl(url.href);
      if (!literal.allowed) throw new BlockedAddressError(literal.reason);
      const answer = await exchange(url, request, { lookup, timeoutMs, bodyLimit, agents });
      const error = classifyOutcome({ status: answer.status });
      return {
        url: shownUrl,
        ...answer,
        latencyMs: elapsed(started, now),
        error: error && { ...error, message: `answered ${answer.status}` },
      };
    } catch (thrown) {
      const error = classifyOutcome({ error: thrown }) ?? {
        type: "network_error",
        code: "unknown",
      };
      return {
        url: shownUrl,
        status: null,
        headers: [],
        body: new Uint8Array(0),
        bodyTruncated: false,
        latencyMs: elapsed(started, now),
        error: { ...error, message: describe(thrown, timeoutMs) },
      };
    }
  }

  return {
    send,
    urlProblem(url) {
      const verdict = options.policy.checkUrl(url);
      return verdict.allowed ? null : verdict.reason;
    },
  };
}

interface Answer {
  status: number;
  headers: HeaderPair[];
  body: Uint8Array;
  bodyTruncated: boolean;
}

/** One request/answer on a fresh or pooled connection, bounded by `timeoutMs` from the start. */
function exchange(
  url: URL,
  request: OutboundRequest,
  limits: {
    lookup: LookupFunction;
    timeoutMs: number;
    bodyLimit: number;
    agents: { http: http.Agent; https: https.Agent };
  },
): Promise<Answer> {
  const body = toBytes(request.body);
  const method = request.method.toUpperCase();
  const client = url.protocol === "https:" ? https : http;
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return Promise.reject(
      Object.assign(new Error(`unsupported scheme ${url.protocol}`), { code: "ERR_INVALID_URL" }),
    );
  }
  return new Promise<Answer>((resolve, reject) => {
    let reading: CappedRead | null = null;
    const req = client.request({
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[|\]$/g, ""),
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method,
      // Flat name/value list, in order: node:http adds nothing but its own Connection header.
      headers: wireHeaders(url, method, request.headers ?? [], body.byteLength).flat(),
      lookup: limits.lookup,
      agent: url.protocol === "https:" ? limits.agents.https : limits.agents.http,
      signal: request.signal,
    });
    const deadline = setTimeout(() => {
      // Once the status arrived the answer stands; only its body is cut short.
      if (reading) reading.cut();
      else req.destroy(new OutboundTimeoutError(`no answer within ${limits.timeoutMs} ms`));
    }, limits.timeoutMs);
    req.on("error", (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    req.on("response", (response) => {
      const status = response.statusCode ?? 0;
      const headers = pairsOf(response.rawHeaders);
      reading = readCapped(response, limits.bodyLimit);
      reading.done.then(({ bytes, truncated }) => {
        clearTimeout(deadline);
        resolve({ status, headers, body: bytes, bodyTruncated: truncated });
      });
    });
    req.end(body.byteLength > 0 ? body : undefined);
  });
}

/**
 * The `lookup` handed to node:http: resolves the name, then refuses the connection when ANY
 * address it resolved to is denied, so a name that flips between a public and a denied address
 * (DNS rebinding) cannot slip through on the connection that is actually opened.
 */
function checkedLookup(policy: OutboundPolicy, resolve: Resolve): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname)
      .then((addresses) => {
        if (addresses.length === 0)
          throw Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" });
        for (const { address } of addresses) {
          const verdict = policy.checkAddress(address);
          if (!verdict.allowed)
            throw new BlockedAddressError(`${hostname} resolves to ${verdict.reason}`);
        }
        const first = addresses[0] as { address: string; family: number };
        if (options.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, "", 0));
  };
}

function pairsOf(raw: string[]): HeaderPair[] {
  const pairs: HeaderPair[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i] as string, raw[i + 1] as string]);
  return pairs;
}

function toBytes(body: OutboundRequest["body"]): Uint8Array {
  if (body === undefined || body === null) return new Uint8Array(0);
  return typeof body === "string" ? new TextEncoder().encode(body) : body;
}

function elapsed(started: number, now: () => number): number {
  return Math.max(0, Math.round(now() - started));
}

function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof BlockedAddressError || error instanceof OutboundTimeoutError) {
    return error.message;
  }
  if ((error as { name?: string })?.name === "TimeoutError")
    return `no answer within ${timeoutMs} ms`;
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && !message.includes(code) ? `${code}: ${message}` : message;
}
