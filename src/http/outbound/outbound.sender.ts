import { lookup as dnsLookup } from "node:dns/promises";
import { type Answer, AnswerParser } from "./outbound.answer.ts";
import { classifyOutcome } from "./outbound.classify.ts";
import {
  AbandonedConnects,
  ConnectingLimitError,
  type ConnectingLimits,
} from "./outbound.connecting.ts";
import type { OutboundConnection } from "./outbound.connection.ts";
import {
  type Connector,
  createConnector,
  type Resolve,
  type Target,
  targetOf,
} from "./outbound.connector.ts";
import { withoutCredentials } from "./outbound.headers.ts";
import {
  BlockedAddressError,
  type OutboundRequest,
  type OutboundResult,
  type OutboundSender,
  OutboundTimeoutError,
} from "./outbound.model.ts";
import type { OutboundPolicy } from "./outbound.policy.ts";
import { ConnectionPool, type PoolLimits } from "./outbound.pool.ts";
import { bodyBytes, requestBytes } from "./outbound.request.ts";

export type { Resolve };

export interface SenderOptions {
  policy: OutboundPolicy;
  /** Default deadline of one send (resolving, connecting, headers and the capped body). */
  timeoutMs: number;
  /** Bytes of an answer's body kept (decisions.md §6: 64 KiB). */
  bodyLimit?: number;
  /** Bytes of an answer's status line, headers and trailers together (64 KiB). */
  headLimit?: number;
  resolve?: Resolve;
  /** Milliseconds from an arbitrary origin, for latency and idle times (performance.now by default). */
  now?: () => number;
  /** Idle keep-alive connections kept, and for how long. */
  pool?: Partial<PoolLimits>;
  /** Connects left pending by ended sends, per origin and in all, past which sends fail at once. */
  connecting?: Partial<ConnectingLimits>;
  /** A PEM certificate trusted instead of the public roots (tests with their own CA). */
  trustedCa?: string;
}

const DEFAULT_BODY_LIMIT = 65_536;
const DEFAULT_HEAD_LIMIT = 65_536;
/** Origins whose verdict and target are remembered; past it the memory starts afresh. */
const ORIGINS_KEPT = 1024;
const DEFAULT_POOL: PoolLimits = { perOrigin: 128, total: 512, idleMs: 4_000 };
/**
 * Only connects that outlived their send's deadline count, so these are reached only by
 * addresses that do not answer; in all, a quarter of a common 1024 descriptor limit.
 */
const DEFAULT_CONNECTING: ConnectingLimits = { perOrigin: 16, total: 256 };
const systemResolve: Resolve = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Builds the one outbound sender: a lean HTTP/1.1 client on Bun.connect (TCP, and TLS with the
 * certificate verified against the URL's host). Not fetch: Bun's fetch always adds `User-Agent`,
 * `Accept` and `Accept-Encoding` and offers no hook on the resolved address; not node:http, which
 * cost about a quarter of a delivery's CPU. It writes only the headers it is given (plus Host,
 * Content-Length and Connection), checks every resolved address of each new connection against
 * the policy and connects to the checked address itself (no second lookup to rebind), never
 * follows redirects, and keeps idle connections per origin for reuse.
 */
export function createOutboundSender(options: SenderOptions): OutboundSender {
  const now = options.now ?? (() => performance.now());
  const limits = {
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    headLimit: options.headLimit ?? DEFAULT_HEAD_LIMIT,
  };
  const pool = new ConnectionPool({ ...DEFAULT_POOL, ...options.pool }, now);
  const connector = createConnector(
    options.policy,
    options.resolve ?? systemResolve,
    new AbandonedConnects({ ...DEFAULT_CONNECTING, ...options.connecting }),
    options.trustedCa,
  );

  // The policy's verdict on a URL's host and where it connects are the same for every send to
  // it: worked out once per origin (the policy does not change during the sender's life).
  const origins = new Map<string, Target>();
  function originOf(url: URL): Target {
    const key = `${url.protocol}//${url.host}`;
    const known = origins.get(key);
    if (known) return known;
    const literal = options.policy.checkUrl(url.href);
    if (!literal.allowed) throw new BlockedAddressError(literal.reason);
    if (origins.size >= ORIGINS_KEPT) origins.clear();
    const target = targetOf(url);
    origins.set(key, target);
    return target;
  }

  async function send(request: OutboundRequest): Promise<OutboundResult> {
    const started = now();
    const timeoutMs = request.timeoutMs ?? options.timeoutMs;
    let shownUrl = request.url;
    try {
      const url = new URL(request.url);
      shownUrl = withoutCredentials(url);
      const target = originOf(url);
      const method = request.method.toUpperCase();
      const bytes = requestBytes(url, method, request.headers ?? [], bodyBytes(request.body));
      const call = { target, method, bytes, timeoutMs, signal: request.signal };
      const answer = await exchangeWithin(call, { pool, connector, limits });
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

interface Call {
  target: Target;
  method: string;
  bytes: Uint8Array;
  timeoutMs: number;
  signal?: AbortSignal;
}

interface Means {
  pool: ConnectionPool;
  connector: Connector;
  limits: { bodyLimit: number; headLimit: number };
}

/**
 * One request and its answer, bounded by the deadline from the start (lookup and connect
 * included). When the deadline passes after the status came, the answer stands with its body cut.
 */
function exchangeWithin(call: Call, means: Means): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    let settled = false;
    let current: { connection: OutboundConnection; parser: AnswerParser } | null = null;
    // The connection still connecting or shaking hands: a server that never finishes the TLS
    // handshake would otherwise keep its socket open after the send ended.
    let opening: OutboundConnection | null = null;
    const settle = (error: unknown, answer?: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      call.signal?.removeEventListener("abort", onAbort);
      if (answer) resolve(answer);
      else reject(error);
    };
    const deadline = setTimeout(() => {
      opening?.destroy();
      current?.connection.destroy();
      if (current && current.parser.status !== null) {
        current.parser.cut();
        settle(null, current.parser.result());
      } else {
        settle(new OutboundTimeoutError(`no answer within ${call.timeoutMs} ms`));
      }
    }, call.timeoutMs);
    const onAbort = () => {
      opening?.destroy();
      current?.connection.destroy();
      const reason: unknown = call.signal?.reason;
      // A timeout signal's reason is classified as a timeout; anything else is an abort.
      settle(
        reason instanceof Error ? reason : new DOMException("the send was aborted", "AbortError"),
      );
    };
    if (call.signal?.aborted) return onAbort();
    call.signal?.addEventListener("abort", onAbort);
    const watch: Watch = {
      opening(connection) {
        if (settled) connection.destroy();
        else opening = connection;
      },
      attach(connection, parser) {
        opening = null;
        if (settled) connection.destroy();
        else current = { connection, parser };
        return !settled;
      },
      live: () => !settled,
    };
    exchange(call, means, watch).then(
      (answer) => settle(null, answer),
      (error) => settle(error),
    );
  });
}

/**
 * The exchange itself, on a pooled connection when one is idle. A pooled connection the server
 * closed while we wrote to it (reset or closed before any byte of an answer) is the one failure
 * retried, once, on a fresh connection, for every method, POST included: a server closes an idle
 * keep-alive connection without reading what arrives on it, and where that cannot be told apart
 * from a server that read the request and died, Weir's deliveries are at-least-once anyway (the
 * same `webhook-id` on every try), and the delivery engine would send it again after its backoff,
 * counting a failure the target never saw against the breaker. A fresh connection is never
 * retried, and neither is anything that got part of an answer.
 */
async function exchange(call: Call, means: Means, watch: Watch): Promise<Answer> {
  const target = call.target;
  let connection = means.pool.take(target.key);
  let reused = connection !== null;
  for (;;) {
    connection ??= await means.connector(target, watch.opening);
    const parser = new AnswerParser({ method: call.method, ...means.limits });
    if (!watch.attach(connection, parser)) throw new OutboundTimeoutError("the send already ended");
    try {
      await connection.exchange(call.bytes, parser);
    } catch (error) {
      connection.destroy();
      // Not after the deadline or an abort: their own destroy closed the connection.
      if (reused && watch.live() && !parser.received && isClosedConnection(error)) {
        connection = null;
        reused = false;
        continue;
      }
      throw error;
    }
    if (parser.reusable && connection.written && !connection.closed) {
      means.pool.put(connection, parser.serverIdleMs);
    } else connection.destroy();
    return parser.result();
  }
}

/** How a send follows its connections, so its deadline or abort can close them. */
interface Watch {
  /** A connection is being opened (before its TCP connect and TLS handshake are done). */
  opening(connection: OutboundConnection): void;
  /** The connection carries the request now; false when the send already ended. */
  attach(connection: OutboundConnection, parser: AnswerParser): boolean;
  /** False once the send ended (deadline, abort or answer). */
  live(): boolean;
}

function isClosedConnection(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === "connection_reset" || code === "ECONNRESET" || code === "EPIPE";
}

function elapsed(started: number, now: () => number): number {
  return Math.max(0, Math.round(now() - started));
}

function describe(error: unknown, timeoutMs: number): string {
  if (
    error instanceof BlockedAddressError ||
    error instanceof OutboundTimeoutError ||
    error instanceof ConnectingLimitError
  ) {
    return error.message;
  }
  if ((error as { name?: string })?.name === "TimeoutError")
    return `no answer within ${timeoutMs} ms`;
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && !message.includes(code) ? `${code}: ${message}` : message;
}
