import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { runMigrations } from "../db/db.migrate.ts";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { openDatabase } from "../db/db.open.ts";
import { seedEndpoint, seedOrganization } from "../test-utils/capture-fixtures.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { startWeirProcess } from "../test-utils/weir-process.ts";
import { createActionsRepo } from "./actions.repo.ts";

const tempDir = useTempDirs("weir-actions-crash-");
const running: Subprocess[] = [];
afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});

test("kill -9 while a capture's chain runs: the restarted server runs the chain it owed", async () => {
  const sink = startHttpSink();
  // The first call is held past the kill; the one after the restart is answered at once.
  sink.answer(() => ({
    status: 200,
    body: "ok",
    delayMs: sink.requests.length === 1 ? 30_000 : 0,
  }));
  const dataDir = tempDir();
  const seed = openDatabase(dataDir);
  runMigrations(seed.sqlite, MIGRATIONS);
  seedOrganization(seed.sqlite, "org-crash", "team");
  seedEndpoint(seed.sqlite, { id: "ep-crash", slug: "crash-actions", organizationId: "org-crash" });
  createActionsRepo(seed).insert({
    id: "act-1",
    organizationId: "org-crash",
    endpointId: "ep-crash",
    type: "http_request",
    name: "notify",
    config: { url: `${sink.url}/notify`, method: "POST", body: "$request.body.json$" },
    position: 0,
    enabled: true,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
  });
  seed.close();
  const env = { WEIR_CAPTURE_RATE_LIMIT: "off", WEIR_ACTIONS_BUDGET_MS: "60000" };
  try {
    const first = await startWeirProcess(dataDir, env, running);
    const response = await fetch(`${first.url}/w/crash-actions`, {
      method: "POST",
      body: '{"n":1}',
    });
    expect(response.status).toBe(200);
    const { request_id: requestId } = (await response.json()) as { request_id: string };
    await pollUntil(() => sink.requests.length === 1, { what: "the chain's request in flight" });
    first.proc.kill("SIGKILL");
    await first.proc.exited;

    await startWeirProcess(dataDir, env, running);
    await pollUntil(() => sink.requests.length === 2, { what: "the owed run after the restart" });
    expect(new TextDecoder().decode(sink.requests[1]?.body)).toBe('{"n":1}');
    const db = new Database(join(dataDir, "weir.db"), { readonly: true });
    try {
      const runs = await pollUntil(() => {
        const rows = db
          .query<{ results: string }, [string]>(
            "SELECT results FROM action_runs WHERE request_id = ?",
          )
          .all(requestId);
        return rows.length > 0 ? rows : undefined;
      });
      expect(runs).toHaveLength(1);
      expect(JSON.parse(runs[0]?.results ?? "[]")[0]).toMatchObject({ status: "ok" });
      expect(db.query("SELECT * FROM action_runs_due").all()).toEqual([]);
    } finally {
      db.close();
    }
  } finally {
    await sink.stop();
  }
}, 60_000);
