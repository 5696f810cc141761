import { expect } from "bun:test";
import type { Subprocess } from "bun";
import { apiCall } from "./api-call.ts";
import { killMidStream, registerOperator } from "./weir-process.ts";

/**
 * What the routing and dedup kill -9 tests set up through the API of a `weir serve` process, on
 * either store: the operator, a source, a bridge to a sink, and a stream of ingests cut by the kill.
 */

/** A bridge with one destination on `sinkUrl`, made through the API; its ingest slug. */
export async function bridgeToSink(url: string, sinkUrl: string): Promise<string> {
  const headers = { authorization: `Bearer ${await registerOperator(url)}` };
  const bridge = await apiCall({ url }, "POST", "/api/v1/bridges", {
    headers,
    body: {
      name: "crash",
      source: { name: "crash", type: "webhook" },
      destinations: [{ name: "crash", type: "http", url: `${sinkUrl}/event` }],
    },
  });
  expect(bridge.status).toBe(201);
  const source = await apiCall({ url }, "GET", `/api/v1/sources/${bridge.body.data.source_id}`, {
    headers,
  });
  return source.body.data.slug as string;
}

/** A source deduplicating on `body.id`, made through the API as an operator would; its id. */
export async function dedupSource(url: string): Promise<string> {
  const token = await registerOperator(url);
  const source = await apiCall({ url }, "POST", "/api/v1/sources", {
    headers: { authorization: `Bearer ${token}` },
    body: {
      name: "crash",
      type: "webhook",
      deduplication_config: { body_path: "body.id", ttl_seconds: 3600 },
    },
  });
  expect(source.status).toBe(201);
  return source.body.data.id as string;
}

/** One order with this id, ingested through the source's API path. */
export const ingestOrder = (url: string, sourceId: string, id: string) =>
  fetch(`${url}/api/v1/sources/${sourceId}/ingest`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ id, amount: 5 }),
  });

/**
 * Ingests distinct orders from `senders` at once until `beforeKill` were accepted, then kills the
 * process with SIGKILL mid-stream: the ids sent (accepted or in flight) and those accepted.
 */
export async function ingestOrdersUntilKilled(
  proc: Subprocess,
  url: string,
  sourceId: string,
  { senders, beforeKill }: { senders: number; beforeKill: number },
): Promise<{ sent: string[]; acknowledged: Set<string> }> {
  const acknowledged = new Set<string>();
  const sent: string[] = [];
  await killMidStream({
    proc,
    senders,
    async send(index, n) {
      const id = `evt_${index}_${n}`;
      sent.push(id);
      const response = await ingestOrder(url, sourceId, id);
      const answer = (await response.json()) as { message: string };
      if (response.status !== 200 || answer.message !== "accepted") {
        throw new Error(`status ${response.status} ${answer.message}`);
      }
      acknowledged.add(id);
    },
    ready: () => acknowledged.size >= beforeKill,
    timeoutMs: 20_000,
    what: `${beforeKill} ingests`,
  });
  return { sent, acknowledged };
}
