import { join } from "node:path";
import { weirServer } from "../lib/subjects.ts";
import type { CustomScenario, Measurement, RunOptions, RunTarget } from "../lib/types.ts";
import { runWrk } from "../lib/wrk.ts";
import { STATUS_PATH, seedStatusWeir, uncachedRenders } from "./status-page-setup.ts";

const RENDERS = 200;
const FIGURE = "uncached render p50 ms";

/**
 * The public status page of 50 monitors × 90 days: cached answers per second against raw
 * Bun.serve sending the same bytes, and the uncached render's p50 (the whole app path with the
 * render cache expired before each request, measured in-process on a copy of the seed).
 */
export const statusPage: CustomScenario = {
  name: "status-page",
  description: "GET /status/{slug} of 50 monitors × 90 days (cached) vs raw Bun.serve, same bytes",
  weir: true,
  unit: "req/s",
  subject: (ctx) => {
    seedStatusWeir(ctx);
    return weirServer(ctx);
  },
  baseline: (ctx) => ({
    command: [
      ctx.bunPath,
      join(import.meta.dir, "status-page-raw.ts"),
      "--port",
      String(ctx.port),
      "--dir",
      ctx.dir,
    ],
    healthPath: "/",
  }),
  targets: { minRatio: 0.3, maxFigures: { [FIGURE]: 5 } },
  async run(target: RunTarget, options: RunOptions): Promise<Measurement> {
    const wrk = await runWrk({ method: "GET", path: STATUS_PATH }, target, options);
    if (target.role !== "subject") return wrk;
    const dir = join(options.dir, `status-page-${Date.now()}`);
    seedStatusWeir({ dir });
    const { p50Ms } = await uncachedRenders(dir, RENDERS);
    return { ...wrk, figures: { ...wrk.figures, [FIGURE]: p50Ms } };
  },
};
