import { afterAll, beforeAll, expect, test } from "bun:test";
import { createServer, type Server, type Socket, connect as tcpConnect } from "node:net";
import { collect, spawnCli } from "../test-utils/cli.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { apiKeyId, capture, type RealtimeWorld, startWorld } from "../test-utils/realtime-world.ts";

/** A TCP relay in front of the server whose connections can be cut: a network drop on demand. */
function startRelay(targetPort: number) {
  const open = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      const listener = createServer((client) => {
        const upstream = tcpConnect(targetPort, "127.0.0.1");
        for (const socket of [client, upstream]) {
          open.add(socket);
          socket.on("error", () => {});
          socket.on("close", () => {
            open.delete(socket);
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream);
        upstream.pipe(client);
      });
      server = listener;
      listener.listen(port, "127.0.0.1", () => {
        port = (listener.address() as { port: number }).port;
        resolve();
      });
    });
  return {
    listen,
    url: () => `http://127.0.0.1:${port}`,
    /** Stops listening and cuts every connection. */
    drop(): Promise<void> {
      for (const socket of open) socket.destroy();
      return new Promise((resolve) => server?.close(() => resolve()));
    },
  };
}

let world: RealtimeWorld;
let key: string;

beforeAll(async () => {
  world = await startWorld();
  key = await world.owner.createApiKey();
});

afterAll(() => world.server.stop());

test("weir tail --forward re-sends every request byte-exact, survives a network drop, and exits 0 on Ctrl-C", async () => {
  const { server, endpoint } = world;
  const sink = startHttpSink();
  sink.answer(() => ({ status: 201, body: "created" }));
  const relay = startRelay(server.port);
  await relay.listen();
  const target = `${sink.url}/local?fixed=1`;
  const child = spawnCli([
    "tail",
    endpoint.slug,
    "--server",
    relay.url(),
    "--token",
    key,
    "--forward",
    target,
    "--json",
  ]);
  const stdout = collect(child.stdout);
  const stderr = collect(child.stderr);
  try {
    await pollUntil(() => stderr.text.includes("waiting for requests"), {
      what: "tail to join",
      timeoutMs: 15_000,
    });

    const binary = new Uint8Array([0, 0xff, 0x10, 0x80, 0x7b]);
    const first = await capture(server, endpoint.slug, {
      method: "PUT",
      subPath: "/orders/42?x=1&y=%20z",
      headers: {
        "content-type": "application/octet-stream",
        "x-signature": "sha256=abc",
        connection: "keep-alive",
      },
      body: binary,
    });
    await pollUntil(() => sink.requests.length === 1, { what: "the first forward" });
    const received = sink.requests[0];
    expect(received?.method).toBe("PUT");
    expect(received?.path).toBe("/local/orders/42");
    expect(received?.query).toBe("fixed=1&x=1&y=%20z");
    expect([...(received?.body ?? [])]).toEqual([...binary]);
    expect(received?.headers.get("x-signature")).toBe("sha256=abc");
    expect(received?.headers.get("content-type")).toBe("application/octet-stream");
    expect(received?.headers.get("x-weir-forwarded")).toBe("1");

    await pollUntil(() => stdout.text.includes(first), { what: "the first JSON line" });
    const line = JSON.parse(stdout.text.trim().split("\n")[0] ?? "{}");
    expect(line).toMatchObject({
      request_id: first,
      method: "PUT",
      path: "/orders/42",
      query_string: "x=1&y=%20z",
      forward: { status: 201, error: null },
    });
    expect(line.forward.latency_ms).toBeGreaterThanOrEqual(0);

    // The network goes away; captures go on; the relay comes back on the same port.
    await relay.drop();
    await pollUntil(() => stderr.text.includes("connection lost"), {
      what: "tail to notice the drop",
    });
    const big = "b".repeat(100 * 1024);
    const missed = [
      await capture(server, endpoint.slug, { body: big, headers: {} }),
      await capture(server, endpoint.slug),
    ];
    await relay.listen();
    await pollUntil(() => sink.requests.length === 3, {
      what: "the missed requests",
      timeoutMs: 15_000,
    });
    expect(new TextDecoder().decode(sink.requests[1]?.body)).toBe(big);
    // tail prints a line once the local app has answered, so the line can trail the sink.
    await pollUntil(() => stdout.text.trim().split("\n").length === 3, {
      what: "a line for each missed request",
    });
    const ids = stdout.text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).request_id);
    expect(ids).toEqual([first, ...missed]);
  } finally {
    child.kill("SIGINT");
    expect(await child.exited).toBe(0);
    await relay.drop();
    await sink.stop();
  }
}, 60_000);

test("weir tail prints one line per request without --json", async () => {
  const { server, endpoint } = world;
  const child = spawnCli(["tail", endpoint.id, "--server", server.url, "--token", key]);
  const stdout = collect(child.stdout);
  const stderr = collect(child.stderr);
  try {
    await pollUntil(() => stderr.text.includes("waiting for requests"), {
      what: "tail to join",
      timeoutMs: 15_000,
    });
    await capture(server, endpoint.slug, { subPath: "/ping?a=1", body: "hello", headers: {} });
    await pollUntil(() => stdout.text.includes("\n"), { what: "a line" });
    expect(stdout.text.trim()).toMatch(/^\d\d:\d\d:\d\d POST \/ping\?a=1 5 B 200$/);
  } finally {
    child.kill("SIGINT");
    expect(await child.exited).toBe(0);
  }
}, 30_000);

test.each([
  [
    "a wrong token",
    ["--token", "svc_wrongwrongwrongwrongwrongwrongwr"],
    /refused the token \(401\)/,
  ],
  ["an unknown endpoint", ["--token", "KEY"], /no endpoint "nope"/],
  [
    "a bad forward URL",
    ["--token", "KEY", "--forward", "ftp://x"],
    /--forward must be an http\(s\) URL/,
  ],
])("%s fails with one line and exit 1", async (_, flags, message) => {
  const args = flags.map((flag) => (flag === "KEY" ? key : flag));
  // Spawned, not run synchronously: the server answering it lives in this process.
  const child = spawnCli(["tail", "nope", "--server", world.server.url, ...args]);
  const [exitCode, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  expect(exitCode).toBe(1);
  expect(stderr.trim()).toMatch(message);
  expect(stderr.trim().split("\n")).toHaveLength(1);
});

test("weir tail ends with exit 1 when its API key is revoked", async () => {
  const { server, endpoint, owner } = world;
  const doomed = await owner.createApiKey("doomed");
  const child = spawnCli(["tail", endpoint.slug, "--server", server.url, "--token", doomed]);
  const stderr = collect(child.stderr);
  await pollUntil(() => stderr.text.includes("waiting for requests"), {
    what: "tail to join",
    timeoutMs: 15_000,
  });
  const id = await apiKeyId(server, owner, "doomed");
  await fetch(`${server.url}/api/v1/organizations/${owner.organizationId}/api-keys/${id}`, {
    method: "DELETE",
    headers: owner.headers,
  });
  expect(await child.exited).toBe(1);
  expect(stderr.text).toContain("weir: the API key was revoked");
}, 30_000);
