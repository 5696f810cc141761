// The point of running scripts in workers: a script spinning for its whole CPU budget in the
// sandbox of a running server does not hold up that server's captures. Timing-based on purpose.
// The machine this runs on is shared and often far past its two cores, where a time slice lost
// to another process alone can cost tens of milliseconds; so a measurement is taken up to five
// times and the best p99 must hold. A script on the main loop fails every attempt by a factor of
// twenty: each capture sent meanwhile waits out the whole second.
import { afterEach, expect, test } from "bun:test";
import { type CaptureServer, startCaptureServer } from "../test-utils/capture-server.ts";
import { pollUntil } from "../test-utils/poll.ts";

const CPU_BUDGET_MS = 1000;
const CLIENTS = 4;
const P99_BOUND_MS = 50;
const ATTEMPTS = 5;
const MIN_SAMPLES = 100;

let server: CaptureServer | undefined;

afterEach(async () => {
  await server?.stop();
  server = undefined;
});

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.max(0, Math.ceil(sorted.length * fraction) - 1)] ?? Number.NaN;
}

interface Measurement {
  samples: number;
  p50: number;
  p99: number;
  max: number;
}

/** Latencies of captures answered while one script spins for its full CPU budget. */
async function measureDuringSpin(capture: CaptureServer, send: () => Promise<number>) {
  const { sandbox } = capture.deps;
  let spinning = true;
  const spin = sandbox.runScript({ code: "for (;;) {}" }).finally(() => {
    spinning = false;
  });
  await pollUntil(() => sandbox.stats().busy === 1, { what: "the script to be running" });
  const latencies: number[] = [];
  const client = async () => {
    while (spinning) {
      const startedAt = performance.now();
      expect(await send()).toBe(200);
      if (spinning) latencies.push(performance.now() - startedAt);
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  const result = await spin;
  expect(result.ok ? null : result.error.kind).toBe("timeout");
  expect(result.durationMs).toBeGreaterThanOrEqual(CPU_BUDGET_MS);
  const sorted = latencies.sort((a, b) => a - b);
  return {
    samples: sorted.length,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    max: sorted.at(-1) ?? Number.NaN,
  } satisfies Measurement;
}

test("captures sent while a script spins for its full CPU budget keep p99 under 50 ms", async () => {
  server = await startCaptureServer({
    config: { sandbox_timeout_ms: CPU_BUDGET_MS, capture_rate_limit: "off" },
  });
  const capture = server;
  const { id, slug } = await capture.endpoint();
  let sent = 0;
  const send = async () => {
    sent += 1;
    const response = await capture.request(`/w/${slug}`, { method: "POST", body: `{"n":${sent}}` });
    await response.arrayBuffer();
    return response.status;
  };
  // Neither side pays a first-use cost (worker start, first request) inside the measurement.
  expect(await send()).toBe(200);
  expect((await capture.deps.sandbox.runScript({ code: "0" })).ok).toBe(true);

  const attempts: Measurement[] = [];
  while (attempts.length < ATTEMPTS) {
    const measured = await measureDuringSpin(capture, send);
    attempts.push(measured);
    console.log(
      `captures during a ${CPU_BUDGET_MS} ms spin: n=${measured.samples} p50=${measured.p50.toFixed(2)} ms p99=${measured.p99.toFixed(2)} ms max=${measured.max.toFixed(2)} ms`,
    );
    if (measured.samples >= MIN_SAMPLES && measured.p99 < P99_BOUND_MS) break;
  }
  const best = attempts
    .filter((a) => a.samples >= MIN_SAMPLES)
    .reduce((a, b) => (b.p99 < a.p99 ? b : a), { samples: 0, p50: 0, p99: Infinity, max: 0 });
  expect(best.samples).toBeGreaterThanOrEqual(MIN_SAMPLES);
  expect(best.p99).toBeLessThan(P99_BOUND_MS);
  // Every capture answered 200 meanwhile is on disk.
  expect((await capture.stored(id)).length).toBe(sent);
});
