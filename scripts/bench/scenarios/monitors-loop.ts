/**
 * The monitors scenario's baseline: the same checks as Weir's monitors (same count, interval and
 * phases, the same target) sent by a plain loop with fetch, storing nothing. Its CPU is what
 * sending the checks costs at all; Weir's CPU over it is what scheduling, storing and rolling up
 * cost. `GET /figures?from=<ms>&to=<ms>` answers the checks started in that window and their drift.
 *
 *   bun monitors-loop.ts '{"port":8080,"target":"http://127.0.0.1:9000/health","monitors":2000,"intervalSeconds":30}'
 */
import { phaseOf } from "../../../src/monitors/monitors.model.ts";

interface LoopPlan {
  port: number;
  target: string;
  monitors: number;
  intervalSeconds: number;
}

const plan = JSON.parse(process.argv[2] ?? "{}") as LoopPlan;
const period = plan.intervalSeconds * 1000;
// The phases Weir gives the seeded monitors (their ids are bench-monitor-<i>), in slot order.
const phases = Array.from({ length: plan.monitors }, (_, i) =>
  phaseOf(`bench-monitor-${i}`, plan.intervalSeconds),
).sort((a, b) => a - b);
/** Start time and drift (start − due) of every check sent. */
const started: number[] = [];
const drifts: number[] = [];

let cycleStart = Math.floor(Date.now() / period) * period;
let next = phases.findIndex((phase) => cycleStart + phase > Date.now());
if (next < 0) {
  next = 0;
  cycleStart += period;
}
function tick(): void {
  const now = Date.now();
  while (cycleStart + (phases[next] as number) <= now) {
    const due = cycleStart + (phases[next] as number);
    started.push(now);
    drifts.push(now - due);
    void fetch(plan.target).then(
      (answer) => answer.arrayBuffer(),
      () => null,
    );
    next += 1;
    if (next === phases.length) {
      next = 0;
      cycleStart += period;
    }
  }
  setTimeout(tick, Math.max(0, cycleStart + (phases[next] as number) - Date.now()));
}
tick();

Bun.serve({
  hostname: "127.0.0.1",
  port: plan.port,
  fetch(request) {
    const url = new URL(request.url);
    if (url.pathname !== "/figures") return new Response("ok");
    const from = Number(url.searchParams.get("from"));
    const to = Number(url.searchParams.get("to"));
    const window = drifts.filter(
      (_, i) => (started[i] as number) >= from && (started[i] as number) < to,
    );
    return Response.json({ drifts: window });
  },
});
for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => process.exit(0));
