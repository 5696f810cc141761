import { afterEach, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { apiCall } from "../test-utils/api-call.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { connectSocket, subscribe, waitForEvents } from "../test-utils/realtime-client.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import {
  registerOperator,
  startWeirProcess,
  type WeirProcess,
} from "../test-utils/weir-process.ts";

const databases = usePgDatabases();
const tempDir = useTempDirs("weir-nodes-");
const running: Subprocess[] = [];
/** The leadership retry period (cluster.leadership.ts), with room for a slow machine. */
const TAKEOVER_MS = 15_000;

afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});

async function leads(node: WeirProcess): Promise<boolean> {
  const answer = await fetch(`${node.url}/metrics`).catch(() => null);
  if (answer?.status !== 200) return false;
  return (await answer.text()).includes("\nweir_cluster_leader 1");
}

async function captureThrough(node: WeirProcess, slug: string, body: string): Promise<string> {
  const answer = await fetch(`${node.url}/w/${slug}`, { method: "POST", body });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { request_id: string }).request_id;
}

test("three nodes on one PostgreSQL: one account and endpoint, every socket hears every capture, a killed leader is replaced", async () => {
  const db = await databases.create();
  const env = { WEIR_DATABASE_URL: db.url, WEIR_SECRET_KEY: "ef".repeat(32) };
  // One after another: the first applies the migrations, the others find them applied.
  const nodes: WeirProcess[] = [];
  for (let i = 0; i < 3; i++) nodes.push(await startWeirProcess(tempDir(), env, running));
  const [first, second] = nodes as [WeirProcess, WeirProcess, WeirProcess];

  const token = await registerOperator(first.url);
  const created = await apiCall(second, "POST", "/api/v1/endpoints", {
    headers: { authorization: `Bearer ${token}` },
    body: { debug_endpoint: { name: "shared" } },
  });
  expect(created.status).toBe(201);
  const { id, slug } = created.body.data as { id: string; slug: string };

  const watchers = await Promise.all(
    nodes.map(async (node) => subscribe(connectSocket(node.url, { token }), id)),
  );
  for (const watcher of watchers) expect(watcher.reply.status).toBe("ok");

  const sent: string[] = [];
  for (const [index, node] of nodes.entries()) {
    sent.push(await captureThrough(node, slug, `through node ${index}`));
  }
  for (const watcher of watchers) {
    await waitForEvents(watcher.events, sent.length);
    expect(watcher.events.map((event) => event.request_id).sort()).toEqual([...sent].sort());
  }

  await pollUntil(async () => (await Promise.all(nodes.map(leads))).filter(Boolean).length === 1, {
    timeoutMs: TAKEOVER_MS,
    what: "exactly one node to lead",
  });
  const leaderIndex = (await Promise.all(nodes.map(leads))).indexOf(true);
  const leader = nodes[leaderIndex] as WeirProcess;
  leader.proc.kill("SIGKILL");
  await leader.proc.exited;
  const survivors = nodes.filter((_, i) => i !== leaderIndex);
  const listening = watchers.filter((_, i) => i !== leaderIndex);

  await pollUntil(async () => (await Promise.all(survivors.map(leads))).includes(true), {
    timeoutMs: TAKEOVER_MS,
    what: "a surviving node to take the lead",
  });
  const before = listening.map((watcher) => watcher.events.length);
  const after: string[] = [];
  for (const [index, node] of survivors.entries()) {
    after.push(await captureThrough(node, slug, `after the kill, survivor ${index}`));
  }
  for (const [index, watcher] of listening.entries()) {
    await waitForEvents(watcher.events, (before[index] ?? 0) + after.length);
    const heard = watcher.events.slice(before[index]).map((event) => event.request_id);
    expect(heard.sort()).toEqual([...after].sort());
  }
}, 90_000);
