import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { runMigrations } from "../db/db.migrate.ts";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { DB_FILE, openDatabase } from "../db/db.open.ts";
import { seedEndpoint, seedOrganization } from "../test-utils/capture-fixtures.ts";
import { freePort } from "../test-utils/free-port.ts";
import { countedOutboxFigures } from "../test-utils/outbox-figures.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { startWeirProcess } from "../test-utils/weir-process.ts";

const tempDir = useTempDirs("weir-gauges-crash-");
const running: Subprocess[] = [];
afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});

const HANGING = 20;
const REFUSED = 5;
const PER_DESTINATION = 4;
/** Long enough that nothing moves while the figures are compared: no answer, no retry, no lease end. */
const QUIET_MS = "3600000";
const env = {
  WEIR_CAPTURE_RATE_LIMIT: "off",
  WEIR_FORWARD_TIMEOUT_MS: "60000",
  WEIR_RETRY_BASE_MS: QUIET_MS,
  WEIR_RETRY_CAP_MS: QUIET_MS,
  WEIR_BREAKER_OPEN_MS: QUIET_MS,
  WEIR_DELIVERY_PER_DESTINATION: String(PER_DESTINATION),
};

const figure = (text: string, series: string) =>
  Number(
    text
      .split("\n")
      .find((line) => line.startsWith(`${series} `))
      ?.split(" ")[1],
  );

/** /metrics's queue figures and the same counted over the table, from another connection. */
async function shownAndCounted(url: string, dataDir: string) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const reader = new Database(`${dataDir}/${DB_FILE}`, { readonly: true });
  try {
    const counted = countedOutboxFigures(reader, Date.now());
    return {
      shown: {
        queued: figure(text, "weir_delivery_queue_depth"),
        due: figure(text, "weir_delivery_due"),
      },
      counted: { queued: counted.queued, due: counted.due },
    };
  } finally {
    reader.close();
  }
}

test("kill -9 with deliveries queued, due, leased and waiting to retry: the restarted server's /metrics rebuilds them exactly", async () => {
  let arrived = 0;
  // Takes each forward and never answers: its rows stay leased, the rest of its key waits due.
  const hanging = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch() {
      arrived += 1;
      return new Promise<Response>(() => {});
    },
  });
  try {
    const dataDir = tempDir();
    const seed = openDatabase(dataDir);
    runMigrations(seed.sqlite, MIGRATIONS);
    seedOrganization(seed.sqlite, "org-gauges", "enterprise");
    seedEndpoint(seed.sqlite, {
      id: "ep-hanging",
      slug: "gauges-hanging",
      organizationId: "org-gauges",
      forwardUrl: `http://127.0.0.1:${hanging.port}/in`,
    });
    seedEndpoint(seed.sqlite, {
      id: "ep-refused",
      slug: "gauges-refused",
      organizationId: "org-gauges",
      forwardUrl: `http://127.0.0.1:${freePort()}/in`,
    });
    seed.close();

    const first = await startWeirProcess(dataDir, env, running);
    for (let i = 0; i < HANGING; i++) {
      expect((await fetch(`${first.url}/w/gauges-hanging`, { method: "POST" })).status).toBe(200);
    }
    for (let i = 0; i < REFUSED; i++) {
      expect((await fetch(`${first.url}/w/gauges-refused`, { method: "POST" })).status).toBe(200);
    }
    // Settled: the refused ones failed and wait an hour; four hang, leased; the rest are due.
    const settled = { queued: HANGING + REFUSED, due: HANGING - PER_DESTINATION };
    const before = await pollUntil(
      async () => {
        const figures = await shownAndCounted(first.url, dataDir);
        return arrived === PER_DESTINATION &&
          figures.shown.due === settled.due &&
          figures.shown.queued === settled.queued
          ? figures
          : false;
      },
      { what: "the outbox to settle before the kill" },
    );
    expect(before.shown).toEqual(before.counted);

    first.proc.kill("SIGKILL");
    await first.proc.exited;
    const second = await startWeirProcess(dataDir, env, running);
    // The dead process's leases are let go at start; the new one leases four of the hanging key
    // again (the same four, due first) and sends them once more.
    const afterRestart = { queued: HANGING + REFUSED, due: HANGING - PER_DESTINATION };
    const after = await pollUntil(
      async () => {
        const figures = await shownAndCounted(second.url, dataDir);
        return arrived === 2 * PER_DESTINATION && figures.shown.due === afterRestart.due
          ? figures
          : false;
      },
      { what: "the restarted server to lease its own four" },
    );
    expect(after.shown).toEqual(afterRestart);
    expect(after.shown).toEqual(after.counted);
  } finally {
    hanging.stop(true);
  }
}, 60_000);
