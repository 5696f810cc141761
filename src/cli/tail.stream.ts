import { Socket } from "phoenix";
import type { WebhookReceived } from "../realtime/realtime.payload.model.ts";

/** A `webhook_received` payload as pushed (docs/realtime.md). */
export type PushedRequest = WebhookReceived;

export interface TailStreamOptions {
  server: string;
  token: string;
  endpointId: string;
  /** Each captured request, once, in capture order (across reconnects too). */
  onRequest(request: PushedRequest): void;
  /** Connection news for the operator: lost, back, and so on. */
  onNotice(message: string): void;
  /** The stream cannot go on (endpoint deleted, access refused): the command must end. */
  onFatal(message: string): void;
  /** Asked after a failed connection: false when the token is no longer accepted. */
  tokenAccepted(): Promise<boolean>;
}

/** Why the server closed the socket with 4401 (docs/realtime.md): reconnecting is pointless. */
const REVOKED_TOKEN_REASONS: Record<string, string> = {
  api_key_revoked: "the API key was revoked",
  plan_without_api_keys: "the organization's plan no longer includes API keys",
  token_expired: "the login token expired",
  password_changed: "the user's password was reset",
  not_member: "the user is no longer a member of the organization",
};

const FATAL_JOIN_REASONS: Record<string, string> = {
  unauthorized: "the token's organization has no such endpoint",
  feature_not_available: "the organization's plan does not include realtime",
};

/**
 * The live feed of one endpoint over the realtime socket, with the official phoenix client. After
 * a network drop the client reconnects and rejoins with `since_request_id` set to the last request
 * seen, so the server replays what was missed: nothing lost, nothing twice.
 */
export function openTailStream(options: TailStreamOptions) {
  let lastId: string | null = null;
  let down = false;
  let joinedOnce = false;
  let closing = false;
  const socket = new Socket(`${options.server.replace(/^http/, "ws")}/socket`, {
    params: { token: options.token },
    transport: WebSocket,
  });
  // A function: the phoenix client evaluates it on every (re)join.
  const channel = socket.channel(`debug:${options.endpointId}`, () =>
    lastId ? { since_request_id: lastId } : {},
  );
  const seen = createRecentIds(10_000);
  channel.on("webhook_received", (payload: PushedRequest) => {
    // The server sends each request once per join; this guards against a stray rejoin race.
    if (!seen.add(payload.request_id)) return;
    lastId = payload.request_id;
    options.onRequest(payload);
  });
  channel.onClose((payload: { reason?: string } | undefined) => {
    if (closing) return;
    if (payload?.reason === "endpoint_deleted") options.onFatal("the endpoint was deleted");
    // The token lost its access to the channel (plan or membership): it is not rejoined.
    if (payload?.reason === "unauthorized") options.onFatal("access to the endpoint was withdrawn");
  });
  socket.onClose((event: { code?: number; reason?: string }) => {
    // Close codes of docs/realtime.md: 4401 means the token lost its rights.
    if (closing || event.code !== 4401) return;
    options.onFatal(REVOKED_TOKEN_REASONS[event.reason ?? ""] ?? "the token was refused");
  });
  socket.onError(() => {
    if (closing || down) return;
    down = true;
    options.onNotice("connection lost; reconnecting");
    void options.tokenAccepted().then((accepted) => {
      if (!accepted && !closing) options.onFatal("the server no longer accepts the token");
    });
  });
  channel
    .join()
    .receive("ok", () => {
      if (!joinedOnce) options.onNotice("connected; waiting for requests");
      else if (down) options.onNotice("reconnected; sending what was missed");
      joinedOnce = true;
      down = false;
    })
    .receive("error", (response: { reason?: string } | undefined) => {
      const reason = response?.reason ?? "unknown";
      options.onFatal(`joining the endpoint failed: ${FATAL_JOIN_REASONS[reason] ?? reason}`);
    });
  socket.connect();

  return {
    lastId: () => lastId,
    close(): void {
      closing = true;
      socket.disconnect();
    },
  };
}

/** The last `capacity` ids seen; `add` answers false for one already among them. */
function createRecentIds(capacity: number) {
  const ids = new Set<string>();
  return {
    add(id: string): boolean {
      if (ids.has(id)) return false;
      ids.add(id);
      if (ids.size > capacity) ids.delete(ids.values().next().value as string);
      return true;
    },
  };
}
