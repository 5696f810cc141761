/**
 * The Phoenix channel wire protocol (decisions.md §7), as the official `phoenix` JS client speaks
 * it: serializer 2.0.0 sends `[join_ref, ref, topic, event, payload]` arrays, 1.0.0 sends
 * `{join_ref, ref, topic, event, payload}` objects. Pure functions only: no sockets here.
 */

export type Serializer = "1.0.0" | "2.0.0";

/** One message in either direction, whatever the serializer. */
export interface Frame {
  joinRef: string | null;
  ref: string | null;
  topic: string;
  event: string;
  payload: unknown;
}

/** Reserved event names of the protocol. */
export const PHX = {
  join: "phx_join",
  leave: "phx_leave",
  reply: "phx_reply",
  close: "phx_close",
  error: "phx_error",
  heartbeat: "heartbeat",
} as const;

/** The socket-level topic heartbeats travel on. */
export const PHOENIX_TOPIC = "phoenix";

/** The one server event of the realtime channel (interface.md, Events). */
export const WEBHOOK_RECEIVED = "webhook_received";
/** A capture's action run, after its `webhook_received`: `{request_id, results}`. */
export const ACTIONS_COMPLETED = "actions_completed";

const DEBUG_TOPIC_PREFIX = "debug:";

/**
 * Close codes the server uses, each with its reason text (the close frame carries both, so a
 * client can tell why it was dropped). 4xxx codes mirror the HTTP status of the same meaning.
 */
export const CLOSE = {
  serverStopping: { code: 1001, reason: "server_stopping" },
  binaryFrame: { code: 1003, reason: "binary_frames_not_supported" },
  invalidFrame: { code: 1007, reason: "invalid_frame" },
  tooFarBehind: { code: 1013, reason: "too_far_behind" },
  apiKeyRevoked: { code: 4401, reason: "api_key_revoked" },
  heartbeatTimeout: { code: 4408, reason: "heartbeat_timeout" },
} as const;

/** Why the server closes a socket: a code and a reason the client sees. */
export type CloseReason = { code: number; reason: string };

/** The socket's token no longer grants what it did (expired, reset, removed, revoked, downgraded). */
export const rightsLost = (why: string): CloseReason => ({ code: 4401, reason: why });

/**
 * The serializer a client asked for with the `vsn` query parameter. Like Phoenix, a missing
 * `vsn` means 1.0.0; a version Weir does not speak gives null (the upgrade is refused).
 */
export function serializerFor(vsn: string | null | undefined): Serializer | null {
  if (vsn === undefined || vsn === null || vsn === "") return "1.0.0";
  if (/^2\.\d+\.\d+$/.test(vsn)) return "2.0.0";
  if (/^1\.\d+\.\d+$/.test(vsn)) return "1.0.0";
  return null;
}

/**
 * Reads one client frame: JSON text, or the value a framework already parsed from it. Returns
 * null for anything that is not a well-formed frame of the socket's serializer.
 */
export function decodeFrame(serializer: Serializer, raw: unknown): Frame | null {
  const value = typeof raw === "string" ? parseJson(raw) : raw;
  if (serializer === "2.0.0") {
    if (!Array.isArray(value) || value.length !== 5) return null;
    const [joinRef, ref, topic, event, payload] = value;
    return checkedFrame({ joinRef, ref, topic, event, payload });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const object = value as Record<string, unknown>;
  return checkedFrame({
    joinRef: object.join_ref,
    ref: object.ref,
    topic: object.topic,
    event: object.event,
    payload: object.payload,
  });
}

/** Writes a frame as the text the socket's serializer expects. */
export function encodeFrame(serializer: Serializer, frame: Frame): string {
  if (serializer === "2.0.0") {
    return JSON.stringify([frame.joinRef, frame.ref, frame.topic, frame.event, frame.payload]);
  }
  return JSON.stringify({
    join_ref: frame.joinRef,
    ref: frame.ref,
    topic: frame.topic,
    event: frame.event,
    payload: frame.payload,
  });
}

/** The `phx_reply` answering `request`. */
export function replyTo(
  request: Frame,
  status: "ok" | "error",
  response: Record<string, unknown> = {},
): Frame {
  return {
    joinRef: request.joinRef,
    ref: request.ref,
    topic: request.topic,
    event: PHX.reply,
    payload: { status, response },
  };
}

/** A server push on a channel the client joined with `joinRef`. */
export function push(
  topic: string,
  joinRef: string | null,
  event: string,
  payload: unknown,
): Frame {
  return { joinRef, ref: null, topic, event, payload };
}

/** The topic of an endpoint's live captures. */
export function debugTopic(endpointId: string): string {
  return `${DEBUG_TOPIC_PREFIX}${endpointId}`;
}

/** The endpoint id named by a `debug:<endpoint_id>` topic; null for any other topic. */
export function endpointIdOfTopic(topic: string): string | null {
  if (!topic.startsWith(DEBUG_TOPIC_PREFIX)) return null;
  const id = topic.slice(DEBUG_TOPIC_PREFIX.length);
  return id === "" ? null : id;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

interface LooseFrame {
  joinRef: unknown;
  ref: unknown;
  topic: unknown;
  event: unknown;
  payload: unknown;
}

function checkedFrame(loose: LooseFrame): Frame | null {
  const joinRef = refText(loose.joinRef);
  const ref = refText(loose.ref);
  if (joinRef === undefined || ref === undefined) return null;
  if (typeof loose.topic !== "string" || typeof loose.event !== "string") return null;
  if (loose.topic === "" || loose.event === "") return null;
  return { joinRef, ref, topic: loose.topic, event: loose.event, payload: loose.payload ?? {} };
}

/** Refs are strings in the JS client; numbers are accepted from hand-written clients. */
function refText(value: unknown): string | null | undefined {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}
