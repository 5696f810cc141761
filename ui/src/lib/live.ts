import { Socket } from "phoenix";
import type { ActionsCompleted, WebhookReceived } from "./types.ts";

/** What the connection indicator shows; every state has words, not only a colour. */
export type LiveState = "connecting" | "live" | "reconnecting" | "unavailable" | "closed";

export const LIVE_LABEL: Record<LiveState, string> = {
  connecting: "Connecting…",
  live: "Live",
  reconnecting: "Reconnecting…",
  unavailable: "Live updates unavailable",
  closed: "Disconnected",
};

export interface LiveOptions {
  organizationId: string | null;
  endpointId: string;
  /** The newest request already shown: sent on every (re)join so the server replays what was missed. */
  sinceRequestId: () => string | undefined;
  onEvent: (event: WebhookReceived) => void;
  /** A capture's action run finished (it always follows the capture's own event). */
  onActions?: (event: ActionsCompleted) => void;
  onState: (state: LiveState, reason?: string) => void;
  /**
   * After every join: the list re-reads its newest rows. On a rejoin that covers what the socket
   * missed; on the first join, a capture made between the first page read and the join (no
   * cursor to replay from when the list was empty).
   */
  onJoined: () => void;
}

/**
 * Follows one endpoint over the realtime socket (decisions.md §7) with the official phoenix
 * client, which reconnects with backoff and rejoins by itself. Returns the function that stops.
 */
export function followEndpoint(options: LiveOptions): () => void {
  const params: Record<string, string> = {};
  if (options.organizationId) params.organization_id = options.organizationId;
  // No token: the upgrade carries the UI's httpOnly session cookie, which the server accepts
  // from a page of its own origin only (docs/security.md, "Web UI session").
  const socket = new Socket("/socket", { params });
  let joins = 0;
  let stopped = false;
  const state = (next: LiveState, reason?: string) => {
    if (!stopped) options.onState(next, reason);
  };
  socket.onError(() => state(joins > 0 ? "reconnecting" : "connecting"));
  socket.onClose(() => state(joins > 0 ? "reconnecting" : "connecting"));

  const since = () => {
    const id = options.sinceRequestId();
    return id ? { since_request_id: id } : {};
  };
  // A closure, not an object: phoenix calls it on every rejoin, so the cursor is always fresh.
  const channel = socket.channel(`debug:${options.endpointId}`, since as unknown as object);
  channel.on("webhook_received", (payload: WebhookReceived) => {
    if (!stopped) options.onEvent(payload);
  });
  channel.on("actions_completed", (payload: ActionsCompleted) => {
    if (!stopped) options.onActions?.(payload);
  });
  channel.onError(() => state("reconnecting"));
  channel
    .join()
    .receive("ok", () => {
      joins += 1;
      state("live");
      if (!stopped) options.onJoined();
    })
    .receive("error", (reply?: { reason?: string }) => {
      // A refused join is final (wrong organization, plan without realtime): stop retrying.
      state("unavailable", reply?.reason);
      stopped = true;
      channel.leave();
      socket.disconnect();
    })
    .receive("timeout", () => state("reconnecting"));
  socket.connect();
  state("connecting");
  return () => {
    stopped = true;
    channel.leave();
    socket.disconnect();
  };
}
