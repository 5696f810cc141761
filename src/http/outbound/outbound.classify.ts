/**
 * The `error_type` / `error_code` vocabulary of decisions.md §8 and the one function that maps
 * what happened on a send to it. Pure: it reads the error objects Bun produces (sockets, TLS,
 * DNS, and the node:http and fetch clients other code may use), the sender's own errors (which
 * carry their code) and the status code, nothing else.
 */

export type ErrorType =
  | "network_error"
  | "http_error"
  | "authentication_error"
  | "circuit_breaker_error"
  | "transformation_error";

/** The codes a send itself can end with (network_error); http codes are the status as text. */
export type NetworkErrorCode =
  | "timeout"
  | "connection_refused"
  | "dns_failure"
  | "tls_error"
  | "connection_reset"
  | "blocked_address"
  | "invalid_response"
  | "invalid_request"
  | "aborted"
  | "unknown";

export interface Classification {
  type: ErrorType;
  code: string;
}

/** What a send ended with: an answer with a status, or an error thrown before one came. */
export type SendOutcome = { status: number } | { error: unknown };

/** Error codes, as sockets, node:http, fetch and the resolver spell them, by what they mean. */
const CODES: Record<string, NetworkErrorCode> = {
  ETIMEDOUT: "timeout",
  ESOCKETTIMEDOUT: "timeout",
  UND_ERR_CONNECT_TIMEOUT: "timeout",
  UND_ERR_HEADERS_TIMEOUT: "timeout",
  ECONNREFUSED: "connection_refused",
  ConnectionRefused: "connection_refused",
  EHOSTUNREACH: "connection_refused",
  ENETUNREACH: "connection_refused",
  EHOSTDOWN: "connection_refused",
  ENETDOWN: "connection_refused",
  EADDRNOTAVAIL: "connection_refused",
  ENOTFOUND: "dns_failure",
  EAI_AGAIN: "dns_failure",
  EAI_NONAME: "dns_failure",
  EAI_FAIL: "dns_failure",
  EAI_NODATA: "dns_failure",
  ENODATA: "dns_failure",
  ESERVFAIL: "dns_failure",
  DNSException: "dns_failure",
  ECONNRESET: "connection_reset",
  ConnectionClosed: "connection_reset",
  EPIPE: "connection_reset",
  ECONNABORTED: "connection_reset",
  EPROTO: "tls_error",
  ERR_INVALID_HTTP_TOKEN: "invalid_request",
  ERR_INVALID_CHAR: "invalid_request",
  ERR_HTTP_INVALID_HEADER_VALUE: "invalid_request",
  ERR_INVALID_URL: "invalid_request",
  ERR_UNESCAPED_CHARACTERS: "invalid_request",
};

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|ERR_OSSL_|UNABLE_TO_)|CERT|TLSV1_ALERT|SSL|HOSTNAME_MISMATCH/;
const PARSE_CODE = /^HPE_|^ERR_HTTP_|^UND_ERR_INVALID|^ERR_INVALID_HTTP_RESPONSE/;

/**
 * The §8 classification of one outcome; null for a 2xx answer (success). 401 and 403 are
 * `authentication_error`, any other status (3xx included: redirects are not followed) an
 * `http_error` with the status as the code; errors are `network_error` with a code from the
 * list above (`unknown` when nothing matches, so a new failure mode is still recorded).
 */
export function classifyOutcome(outcome: SendOutcome): Classification | null {
  if ("status" in outcome) return classifyStatus(outcome.status);
  return { type: "network_error", code: networkErrorCode(outcome.error) };
}

/** null for 2xx; authentication_error for 401/403; http_error otherwise. */
export function classifyStatus(status: number): Classification | null {
  if (status >= 200 && status < 300) return null;
  if (status === 401 || status === 403) return { type: "authentication_error", code: `${status}` };
  return { type: "http_error", code: `${status}` };
}

/** The network_error code of a thrown error (ours carry the code itself). */
export function networkErrorCode(error: unknown): NetworkErrorCode {
  const { code, name, syscall, message } = fieldsOf(error);
  if (code && isOwnCode(code)) return code;
  if (name === "TimeoutError" || code === "23") return "timeout";
  if (name === "AbortError") return "aborted";
  // A resolver failure can carry a socket-like code (ECONNREFUSED from the DNS server).
  if (name === "DNSException" || syscall === "getaddrinfo" || syscall?.startsWith("query")) {
    return "dns_failure";
  }
  if (code && CODES[code]) return CODES[code];
  if (code && TLS_CODE.test(code)) return "tls_error";
  if (code && PARSE_CODE.test(code)) return "invalid_response";
  if (/socket hang up|closed unexpectedly/i.test(message)) return "connection_reset";
  return "unknown";
}

const OWN_CODES = new Set<string>([
  "timeout",
  "blocked_address",
  "connection_refused",
  "dns_failure",
  "tls_error",
  "connection_reset",
  "invalid_response",
  "invalid_request",
  "aborted",
]);

function isOwnCode(code: string): code is NetworkErrorCode {
  return OWN_CODES.has(code);
}

function fieldsOf(error: unknown) {
  const value = (error ?? {}) as { code?: unknown; name?: unknown; syscall?: unknown };
  return {
    code: value.code === undefined ? undefined : String(value.code),
    name: typeof value.name === "string" ? value.name : undefined,
    syscall: typeof value.syscall === "string" ? value.syscall : undefined,
    message: error instanceof Error ? error.message : String(error),
  };
}
