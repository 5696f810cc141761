import { readdirSync } from "node:fs";

/** A port on 127.0.0.1 where connects never complete until told (see black-hole.child.ts). */
export interface BlackHole {
  url: string;
  /** Lets the pending connects complete (each at its next SYN retransmit). */
  accept(): Promise<void>;
  /** Closes the listener: pending connects are refused at their next SYN retransmit. */
  close(): Promise<void>;
  /** Connections that completed after `accept`, and how many of those the client closed. */
  stats(): Promise<{ accepted: number; peerClosed: number }>;
  stop(): void;
}

export async function startBlackHole(): Promise<BlackHole> {
  const child = Bun.spawn(["bun", new URL("./black-hole.child.ts", import.meta.url).pathname], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = child.stdout.getReader();
  let buffered = "";
  async function nextLine(): Promise<string> {
    for (;;) {
      const at = buffered.indexOf("\n");
      if (at >= 0) {
        const line = buffered.slice(0, at);
        buffered = buffered.slice(at + 1);
        return line;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("black hole process ended");
      buffered += new TextDecoder().decode(value);
    }
  }
  const command = async (line: string) => {
    child.stdin.write(`${line}\n`);
    await child.stdin.flush();
  };
  const { port } = JSON.parse(await nextLine()) as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    accept: () => command("accept"),
    close: () => command("close"),
    async stats() {
      await command("stats");
      return JSON.parse(await nextLine());
    },
    stop: () => child.kill(),
  };
}

/** File descriptors this process holds now. */
export function openDescriptors(): number {
  return readdirSync("/proc/self/fd").length;
}
