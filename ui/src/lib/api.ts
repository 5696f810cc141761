/** What a failed API call said: the status, the `error` code and per-field messages. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly fields: Record<string, string[]> = {},
    /** The server's `request_id` of a 5xx answer, so the log line can be found. */
    readonly requestId?: string,
  ) {
    super(describeError(status, code));
  }
}

/** Sentences for the codes of decisions.md §4 and the auth room; others are shown as sent. */
const MESSAGES: Record<string, string> = {
  validation_failed: "Some fields need attention.",
  slug_taken: "This slug is already used by another endpoint.",
  endpoint_limit_reached:
    "Your plan's endpoint limit is reached: delete an endpoint, or ask the administrator for a larger plan.",
  registration_closed: "Registration is closed on this server. Log in instead.",
  forbidden: "Your role in this organization does not allow this.",
  jwt_required: "Log in with a password to manage API keys.",
  rate_limited: "Too many attempts. Wait a moment and try again.",
  not_found: "Not found: it may have been deleted.",
  email_taken: "An account with this email already exists.",
  already_member: "This person is already a member.",
  invalid_json: "The server could not read the request.",
  feature_not_available: "Your plan does not include this feature.",
  retry_in_progress: "A bulk retry is already running. Try again once it has finished.",
  in_use: "It is still in use: change what refers to it first.",
  secret_in_use: "This secret is still used: change what refers to it first.",
};

function describeError(status: number, code: string): string {
  if (MESSAGES[code]) return MESSAGES[code];
  if (code) return code;
  return status === 0 ? "The server cannot be reached." : `The server answered ${status}.`;
}

export interface ApiOptions {
  organizationId: () => string | null;
  /** Whether a session is believed open: only then does a 401 mean it has ended. */
  loggedIn: () => boolean;
  /** Called when a logged-in call answers 401: the session expired or was revoked. */
  onUnauthorized: () => void;
}

export type Api = ReturnType<typeof createApi>;

/**
 * The one way the UI calls the server: JSON in and out, organization added. Credentials are the
 * httpOnly session cookie, which the server accepts only with `X-Weir-UI` from this origin.
 */
export function createApi(options: ApiOptions) {
  async function call<T>(
    method: string,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<T> {
    const headers: Record<string, string> = { accept: "application/json", "x-weir-ui": "1" };
    const org = options.organizationId();
    if (org) headers["x-organization-id"] = org;
    if (body !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    try {
      response = await fetch(path, {
        method,
        headers,
        credentials: "same-origin",
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (error) {
      // An abort is the caller leaving, not the network failing: let it pass as it is.
      if (signal?.aborted) throw error;
      throw new ApiError(0, "");
    }
    if (response.status === 204) return undefined as T;
    const data = (await response.json().catch(() => null)) as Record<string, unknown> | null;
    if (response.ok) return data as T;
    if (response.status === 401 && options.loggedIn()) options.onUnauthorized();
    const code = typeof data?.error === "string" ? data.error : "";
    const fields = (data?.errors ?? {}) as Record<string, string[]>;
    const requestId = typeof data?.request_id === "string" ? data.request_id : undefined;
    throw new ApiError(response.status, code, fields, requestId);
  }
  return {
    get: <T>(path: string, signal?: AbortSignal) => call<T>("GET", path, undefined, signal),
    post: <T>(path: string, body: unknown = {}, signal?: AbortSignal) =>
      call<T>("POST", path, body, signal),
    put: <T>(path: string, body: unknown) => call<T>("PUT", path, body),
    patch: <T>(path: string, body: unknown) => call<T>("PATCH", path, body),
    delete: <T = void>(path: string) => call<T>("DELETE", path),
  };
}

/** The message to show for any thrown value. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
