import { createServer, type Socket } from "node:net";

/** One request as it arrived on the wire: the head byte for byte, then the body. */
export interface RawRequest {
  /** The request line and header lines exactly as sent (latin1), without the blank line. */
  head: string;
  requestLine: string;
  /** `[name, value]` per header line, case and order as sent. */
  headers: [string, string][];
  body: Uint8Array;
}

/**
 * What the sink does with a request: answer these raw bytes (and close, unless `keepOpen`),
 * reset the connection, close it without a word, or say nothing at all.
 */
export type RawBehaviour =
  | { answer: string | Uint8Array; keepOpen?: boolean }
  | "reset"
  | "silent"
  | "close";

export interface RawSink {
  url: string;
  port: number;
  requests: RawRequest[];
  behave(fn: (request: RawRequest) => RawBehaviour): void;
  stop(): Promise<void>;
}

const OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";

/**
 * A TCP server on 127.0.0.1 that records every byte of each request head: no HTTP library sits
 * between what a sender wrote and what a test asserts (header case, order, repeats, additions).
 * Bodies are framed by Content-Length only; the sender under test sets it.
 */
export async function startRawSink(): Promise<RawSink> {
  const requests: RawRequest[] = [];
  const sockets = new Set<Socket>();
  let behaviour: (request: RawRequest) => RawBehaviour = () => ({ answer: OK });
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let buffer = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const request = takeRequest(buffer);
      if (!request) return;
      buffer = buffer.subarray(request.consumed);
      requests.push(request.request);
      act(socket, behaviour(request.request));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    behave: (fn) => {
      behaviour = fn;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function act(socket: Socket, behaviour: RawBehaviour): void {
  if (behaviour === "silent") return;
  if (behaviour === "reset") socket.resetAndDestroy();
  else if (behaviour === "close") socket.end();
  else if (behaviour.keepOpen) socket.write(behaviour.answer);
  else socket.end(behaviour.answer);
}

function takeRequest(buffer: Buffer): { request: RawRequest; consumed: number } | null {
  const end = buffer.indexOf("\r\n\r\n");
  if (end < 0) return null;
  const head = buffer.subarray(0, end).toString("latin1");
  const [requestLine = "", ...lines] = head.split("\r\n");
  const headers = lines.map((line): [string, string] => {
    const colon = line.indexOf(":");
    return [line.slice(0, colon), line.slice(colon + 1).trim()];
  });
  const length = Number(
    headers.find(([name]) => name.toLowerCase() === "content-length")?.[1] ?? 0,
  );
  if (buffer.byteLength < end + 4 + length) return null;
  const body = new Uint8Array(buffer.subarray(end + 4, end + 4 + length));
  return { request: { head, requestLine, headers, body }, consumed: end + 4 + length };
}
