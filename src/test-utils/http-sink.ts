/** One request as an HTTP sink received it. */
export interface SinkRequest {
  method: string;
  path: string;
  query: string;
  headers: Headers;
  body: Uint8Array;
  receivedAt: number;
}

/** What the sink answers; a function of the request so tests can vary status, delay and body. */
export interface SinkAnswer {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
}

export interface HttpSink {
  url: string;
  requests: SinkRequest[];
  /** Sets how the sink answers from now on (default 200 "ok"). */
  answer(fn: (request: SinkRequest) => SinkAnswer): void;
  stop(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 that records every request: the stand-in for a destination. */
export function startHttpSink(): HttpSink {
  const requests: SinkRequest[] = [];
  let respond: (request: SinkRequest) => SinkAnswer = () => ({ status: 200, body: "ok" });
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const received: SinkRequest = {
        method: request.method,
        path: url.pathname,
        query: url.search.slice(1),
        headers: request.headers,
        body: new Uint8Array(await request.arrayBuffer()),
        receivedAt: Date.now(),
      };
      requests.push(received);
      const answer = respond(received);
      if (answer.delayMs) await Bun.sleep(answer.delayMs);
      return new Response(answer.body ?? "", {
        status: answer.status ?? 200,
        headers: answer.headers,
      });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    answer: (fn) => {
      respond = fn;
    },
    stop: () => server.stop(true),
  };
}
