import { afterAll, expect, test } from "bun:test";
import { connectSocket, subscribe, waitForEvents } from "../test-utils/realtime-client.ts";
import { capture, type RealtimeWorld, startWorld } from "../test-utils/realtime-world.ts";

/**
 * A client that joins and then never reads again: it completes the handshake and the join over
 * a raw TCP socket, then blocks its own event loop, so everything Weir sends piles up.
 */
const STUCK_CLIENT = `
const net = require("node:net");
const fs = require("node:fs");
const [port, token, topic] = process.argv.slice(-3);
const frame = (text) => {
  const data = Buffer.from(text);
  const mask = Buffer.from([1, 2, 3, 4]);
  const head = data.length < 126 ? Buffer.from([0x81, 0x80 | data.length])
    : Buffer.from([0x81, 0x80 | 126, data.length >> 8, data.length & 255]);
  return Buffer.concat([head, mask, data.map((byte, i) => byte ^ mask[i % 4])]);
};
const socket = net.connect(Number(port), "127.0.0.1", () => {
  socket.write("GET /socket/websocket?vsn=2.0.0&token=" + token + " HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n" +
    "Upgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Version: 13\\r\\n" +
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\n\\r\\n");
});
let received = "";
socket.on("data", (chunk) => {
  received += chunk.toString("latin1");
  if (received.includes(" 101 ") && !received.includes("phx_join")) {
    received += "phx_join";
    socket.write(frame(JSON.stringify(["1", "1", topic, "phx_join", {}])));
  } else if (received.includes('"status":"ok"')) {
    fs.writeSync(1, "joined\\n");
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120000);
  }
});
`;

/** Reads a child's output until it contains `marker` (the child says when it is ready). */
async function readUntil(stream: ReadableStream<Uint8Array>, marker: string): Promise<void> {
  const reader = stream.getReader();
  let text = "";
  const deadline = setTimeout(() => reader.cancel(), 10_000);
  while (!text.includes(marker)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the client ended before saying "${marker}": ${text}`);
    text += new TextDecoder().decode(value);
  }
  clearTimeout(deadline);
  reader.releaseLock();
}

let world: RealtimeWorld;
let stuck: Bun.Subprocess<"ignore", "pipe", "pipe"> | undefined;

afterAll(async () => {
  stuck?.kill("SIGKILL");
  await world?.server.stop();
});

test("a subscriber that stops reading is closed as too far behind; capture and the others go on", async () => {
  world = await startWorld({ config: { realtime_max_buffered_bytes: 65_536 } });
  const { server, endpoint, owner } = world;
  const topic = `debug:${endpoint.id}`;
  stuck = Bun.spawn(["bun", "-e", STUCK_CLIENT, String(server.port), owner.token, topic], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  await readUntil(stuck.stdout, "joined");
  const healthy = connectSocket(server.url, { token: owner.token });
  const watcher = await subscribe(healthy, endpoint.id);
  const closedForLag = () => server.logs.some((line) => line.includes("too_far_behind"));

  // 64 KiB bodies fill the kernel's socket buffers quickly; then Weir's own buffer passes its cap.
  const body = "x".repeat(60 * 1024);
  let sent = 0;
  while (!closedForLag() && sent < 1000) {
    await capture(server, endpoint.slug, { body, headers: {} });
    sent += 1;
  }
  expect(closedForLag()).toBe(true);
  await waitForEvents(watcher.events, sent, 10_000);
  expect(watcher.events).toHaveLength(sent);
  expect(healthy.opened()).toBe(true);
  healthy.disconnect();
});
