import { request as httpRequest } from "node:http";
import { type Channel, Socket, type SocketConnectOption } from "phoenix";
import type { Serializer } from "../realtime/realtime.protocol.model.ts";
import { pollUntil } from "./poll.ts";

/** Socket options of the phoenix client for the 1.0.0 (object) serializer. */
const V1_CODEC = {
  vsn: "1.0.0",
  encode: (message: Record<string, unknown>, callback: (text: string) => void) =>
    callback(
      JSON.stringify({
        join_ref: message.join_ref,
        ref: message.ref,
        topic: message.topic,
        event: message.event,
        payload: message.payload,
      }),
    ),
  decode: (raw: string, callback: (message: unknown) => void) => callback(JSON.parse(raw)),
};

export interface TestSocket {
  socket: Socket;
  /** Every close event the client saw (code and reason of each). */
  closes: { code: number; reason: string }[];
  errors: number;
  opened: () => boolean;
  disconnect(): void;
}

/** A phoenix client socket to a test server, connected, with its opens/closes recorded. */
export function connectSocket(
  serverUrl: string,
  params: Record<string, string>,
  serializer: Serializer = "2.0.0",
  options: Partial<SocketConnectOption> = {},
): TestSocket {
  const socket = new Socket(`${serverUrl.replace(/^http/, "ws")}/socket`, {
    params,
    transport: WebSocket,
    // Tests drive time: no heartbeats and no reconnects unless a test asks for them.
    heartbeatIntervalMs: 3_600_000,
    reconnectAfterMs: () => 3_600_000,
    rejoinAfterMs: () => 3_600_000,
    ...(serializer === "1.0.0" ? V1_CODEC : {}),
    ...options,
  } as Partial<SocketConnectOption>);
  const state: TestSocket = {
    socket,
    closes: [],
    errors: 0,
    opened: () => socket.isConnected(),
    disconnect: () => socket.disconnect(),
  };
  socket.onClose((event: unknown) => {
    const close = event as { code: number; reason: string };
    state.closes.push({ code: close.code, reason: close.reason });
  });
  socket.onError(() => {
    state.errors += 1;
  });
  socket.connect();
  return state;
}

export interface JoinResult {
  status: "ok" | "error" | "timeout";
  response: Record<string, unknown>;
}

/** Joins `topic` and resolves with the server's reply. */
export function join(channel: Channel, timeoutMs = 5000): Promise<JoinResult> {
  return new Promise((resolve) => {
    channel
      .join(timeoutMs)
      .receive("ok", (response) => resolve({ status: "ok", response }))
      .receive("error", (response) => resolve({ status: "error", response }))
      .receive("timeout", () => resolve({ status: "timeout", response: {} }));
  });
}

/** A joined channel of `debug:<endpointId>` that records every `webhook_received` payload. */
export async function subscribe(
  socket: TestSocket,
  endpointId: string,
  params: Record<string, unknown> | (() => Record<string, unknown>) = {},
) {
  const channel = socket.socket.channel(`debug:${endpointId}`, params as object);
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect the pushed JSON as received.
  const events: any[] = [];
  const closes: unknown[] = [];
  channel.on("webhook_received", (payload) => {
    events.push(payload);
  });
  channel.onClose((payload: unknown) => {
    closes.push(payload);
  });
  const reply = await join(channel);
  return { channel, events, closes, reply };
}

/** Waits until `events` holds at least `count` entries. */
export function waitForEvents(events: unknown[], count: number, timeoutMs = 5000) {
  return pollUntil(() => events.length >= count, {
    timeoutMs,
    what: `${count} webhook_received events (have ${events.length})`,
  });
}

/**
 * A raw WebSocket handshake to `/socket/websocket?<query>`: the HTTP status the server answered
 * (101 when it accepted the upgrade).
 */
export function handshakeStatus(
  serverUrl: string,
  query: string,
  extraHeaders: Record<string, string> = {},
): Promise<number> {
  const url = new URL(`/socket/websocket?${query}`, serverUrl);
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, {
      headers: {
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": Buffer.from("weir-test-nonce!").toString("base64"),
        ...extraHeaders,
      },
    });
    request.on("upgrade", (response, socket) => {
      socket.destroy();
      resolve(response.statusCode ?? 0);
    });
    request.on("response", (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on("error", reject);
    request.end();
  });
}
