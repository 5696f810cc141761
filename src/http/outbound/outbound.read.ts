import type { IncomingMessage } from "node:http";

/** A body being read up to a cap; `cut()` ends it early (the deadline passed). */
export interface CappedRead {
  done: Promise<{ bytes: Uint8Array; truncated: boolean }>;
  cut(): void;
}

/**
 * Reads at most `limit` bytes of an answer's body. Past the limit, or when cut, the connection is
 * dropped rather than drained: a target that streams without end cannot hold the sender.
 */
export function readCapped(response: IncomingMessage, limit: number): CappedRead {
  const chunks: Buffer[] = [];
  let size = 0;
  let finish: (truncated: boolean) => void = () => {};
  const done = new Promise<{ bytes: Uint8Array; truncated: boolean }>((resolve) => {
    let settled = false;
    finish = (truncated) => {
      if (settled) return;
      settled = true;
      const bytes = new Uint8Array(Buffer.concat(chunks).subarray(0, limit));
      resolve({ bytes, truncated });
    };
  });
  response.on("data", (chunk: Buffer) => {
    chunks.push(chunk);
    size += chunk.byteLength;
    if (size > limit) {
      finish(true);
      response.destroy();
    }
  });
  response.on("end", () => finish(false));
  // An answer cut off mid-body keeps what came: the status is what the target said.
  response.on("error", () => finish(true));
  response.on("close", () => finish(!response.complete));
  return {
    done,
    cut() {
      finish(true);
      response.destroy();
    },
  };
}
