import type { Socket, TLSOptions } from "bun";

/** One request as it arrived, with the connection (numbered from 1) that carried it. */
export interface ScriptedRequest {
  connection: number;
  /** How many requests that connection carried before this one. */
  index: number;
  requestLine: string;
  headers: [string, string][];
  body: Uint8Array;
}

/** What the server does with a request: write parts (each after `delayMs`), then maybe end. */
export interface ScriptedAnswer {
  parts: { bytes: string | Uint8Array; delayMs?: number }[];
  after?: "keep" | "close" | "reset";
}

export type Script = (request: ScriptedRequest) => ScriptedAnswer | "close" | "reset" | "silent";

export interface ScriptedServer {
  port: number;
  url: string;
  requests: ScriptedRequest[];
  /** Connections opened so far. */
  readonly opened: number;
  /** True while the connection numbered `id` is open. */
  isOpen(id: number): boolean;
  script(fn: Script): void;
  stop(): void;
}

interface ConnectionState {
  id: number;
  index: number;
  buffer: Buffer;
}

/**
 * A raw HTTP/1.1 server on 127.0.0.1 (Bun.listen, optionally TLS) that answers each request with
 * exactly the bytes a test scripts: keep-alive, chunked, close-delimited, interim answers,
 * malformed heads, slow parts, resets. It counts connections, so reuse can be asserted.
 */
export function startScriptedServer(tls?: TLSOptions): ScriptedServer {
  const requests: ScriptedRequest[] = [];
  const sockets = new Set<Socket<ConnectionState>>();
  let script: Script = () => ({
    parts: [{ bytes: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok" }],
  });
  let opened = 0;
  const listener = Bun.listen<ConnectionState>({
    hostname: "127.0.0.1",
    port: 0,
    ...(tls && { tls }),
    socket: {
      open(socket) {
        opened += 1;
        socket.data = { id: opened, index: 0, buffer: Buffer.alloc(0) };
        sockets.add(socket);
      },
      data(socket, chunk) {
        const state = socket.data;
        state.buffer = Buffer.concat([state.buffer, chunk]);
        for (let request = take(state); request; request = take(state)) {
          requests.push(request);
          void act(socket, script(request));
        }
      },
      close(socket) {
        sockets.delete(socket);
      },
      error() {},
    },
  });
  return {
    port: listener.port,
    url: `http://127.0.0.1:${listener.port}`,
    requests,
    get opened() {
      return opened;
    },
    isOpen(id) {
      for (const socket of sockets) if (socket.data.id === id) return true;
      return false;
    },
    script(fn) {
      script = fn;
    },
    stop() {
      listener.stop(true);
    },
  };
}

async function act(socket: Socket<ConnectionState>, answer: ReturnType<Script>): Promise<void> {
  if (answer === "silent") return;
  if (answer === "close") return void socket.end();
  if (answer === "reset") return void socket.terminate();
  for (const part of answer.parts) {
    if (part.delayMs) await Bun.sleep(part.delayMs);
    socket.write(part.bytes);
  }
  if (answer.after === "close") socket.end();
  else if (answer.after === "reset") socket.terminate();
}

function take(state: ConnectionState): ScriptedRequest | null {
  const end = state.buffer.indexOf("\r\n\r\n");
  if (end < 0) return null;
  const [requestLine = "", ...lines] = state.buffer.toString("latin1", 0, end).split("\r\n");
  const headers = lines.map((line): [string, string] => {
    const colon = line.indexOf(":");
    return [line.slice(0, colon), line.slice(colon + 1).trim()];
  });
  const length = Number(headers.find(([n]) => n.toLowerCase() === "content-length")?.[1] ?? 0);
  if (state.buffer.byteLength < end + 4 + length) return null;
  const body = new Uint8Array(state.buffer.subarray(end + 4, end + 4 + length));
  state.buffer = state.buffer.subarray(end + 4 + length);
  const request = { connection: state.id, index: state.index, requestLine, headers, body };
  state.index += 1;
  return request;
}
