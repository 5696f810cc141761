import { afterEach, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { pollUntil } from "../test-utils/poll.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { startNodesOn, type WeirProcess } from "../test-utils/weir-process.ts";

const databases = usePgDatabases();
const tempDir = useTempDirs("weir-gateway-nodes-");
const running: Subprocess[] = [];
const sinks: { stop(force: boolean): void }[] = [];

afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
  for (const sink of sinks.splice(0)) sink.stop(true);
});

interface Received {
  n: number;
  webhookId: string;
}

/** A destination that takes a little while to answer, so deliveries are in flight at a kill. */
function slowSink(received: Received[]): string {
  const sink = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const body = (await request.json()) as { n: number };
      await Bun.sleep(25);
      received.push({ n: body.n, webhookId: request.headers.get("webhook-id") ?? "" });
      return new Response("ok");
    },
  });
  sinks.push(sink);
  return `http://127.0.0.1:${sink.port}/hook`;
}

async function call(node: WeirProcess, token: string, path: string, body: unknown) {
  const answer = await fetch(`${node.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const json = (await answer.json()) as { data: { id: string; slug: string } };
  if (answer.status !== 201)
    throw new Error(`${path} answered ${answer.status}: ${JSON.stringify(json)}`);
  return json.data;
}

test("three nodes on one PostgreSQL: every accepted event is delivered at least once, with one webhook-id, while a node is killed with SIGKILL", async () => {
  const db = await databases.create();
  const { nodes, token } = await startNodesOn(db.url, 3, tempDir, running);
  const [first, second, victim] = nodes as [WeirProcess, WeirProcess, WeirProcess];
  const received: Received[] = [];
  const source = await call(first, token, "/api/v1/sources", { name: "shop", type: "webhook" });
  await call(second, token, "/api/v1/bridges", {
    name: "shop to sink",
    source_id: source.id,
    destinations: [{ name: "sink", type: "http", url: slowSink(received), max_retries: 5 }],
  });

  const EVENTS = 240;
  const accepted = new Set<number>();
  let killed = false;
  const send = async (n: number) => {
    const alive = killed ? [first, second] : nodes;
    const node = alive[n % alive.length] as WeirProcess;
    const answer = await fetch(`${node.url}/in/${source.slug}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ n }),
    }).catch(() => null);
    if (answer?.status === 200) accepted.add(n);
    else if (!(node === victim && killed))
      throw new Error(`event ${n}: ${answer?.status ?? "no answer"}`);
  };
  // Eight senders; the victim is killed once a quarter of the events reached the sink, while it
  // has deliveries claimed and in flight.
  let next = 0;
  const senders = Array.from({ length: 8 }, async () => {
    while (next < EVENTS) await send(next++);
  });
  await pollUntil(() => received.length >= EVENTS / 4, {
    timeoutMs: 60_000,
    what: "a quarter delivered",
  });
  victim.proc.kill("SIGKILL");
  killed = true;
  await victim.proc.exited;
  await Promise.all(senders);

  await pollUntil(() => [...accepted].every((n) => received.some((r) => r.n === n)), {
    timeoutMs: 90_000,
    what: "every accepted event delivered",
  });
  expect(accepted.size).toBeGreaterThan(EVENTS * 0.9);
  const idsOf = new Map<number, Set<string>>();
  for (const r of received) idsOf.set(r.n, (idsOf.get(r.n) ?? new Set()).add(r.webhookId));
  for (const [n, ids] of idsOf) {
    expect({ n, ids: [...ids] }).toEqual({ n, ids: [expect.stringMatching(/^msg_\w+$/)] });
  }
  // One webhook-id per event: repeats after the kill kept theirs, and no two events share one.
  const allIds = new Set(received.map((r) => r.webhookId));
  expect(allIds.size).toBe(idsOf.size);
}, 180_000);
