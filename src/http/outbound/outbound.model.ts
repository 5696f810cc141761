import type { Classification } from "./outbound.classify.ts";
import type { HeaderPair } from "./outbound.headers.ts";

/** One request to send, exactly as the caller wants it on the wire (minus hop-by-hop headers). */
export interface OutboundRequest {
  /** Absolute http(s) URL; `user:password@` becomes `Authorization: Basic`. */
  url: string;
  method: string;
  headers?: readonly HeaderPair[];
  /** Sent byte for byte; Content-Length is set from it. */
  body?: Uint8Array | string | null;
  /** Overrides the sender's default deadline for this request. */
  timeoutMs?: number;
  /** Ends the send early (e.g. Ctrl-C in `weir tail`): recorded as `aborted`. */
  signal?: AbortSignal;
}

/** What one send came to; never thrown, always returned. */
export interface OutboundResult {
  /** The URL sent to, credentials removed: safe to store and show. */
  url: string;
  /** null when no answer came (the error says why). */
  status: number | null;
  /** The answer's header pairs as received ([] without an answer). */
  headers: HeaderPair[];
  /** The first `bodyLimit` bytes of the answer. */
  body: Uint8Array;
  /** True when the answer's body went on past `bodyLimit` (the rest was not read). */
  bodyTruncated: boolean;
  /** From the start of the send to the end of the (capped) body, or to the failure. */
  latencyMs: number;
  /** decisions.md §8: null for a 2xx answer; otherwise type, code and a readable message. */
  error: (Classification & { message: string }) | null;
}

/** The one way Weir sends an HTTP request to somewhere else. */
export interface OutboundSender {
  send(request: OutboundRequest): Promise<OutboundResult>;
  /**
   * The save-time half of the address policy for a target URL: null when acceptable, else the
   * reason (for a 422 on the field that holds it). Names are judged again when resolved.
   */
  urlProblem(url: string): string | null;
}

/** A refusal by the outbound address policy, raised where the address is known. */
export class BlockedAddressError extends Error {
  readonly code = "blocked_address";
  override name = "BlockedAddressError";
}

/** The deadline of a send passed. */
export class OutboundTimeoutError extends Error {
  readonly code = "timeout";
  override name = "OutboundTimeoutError";
}
