import type { Database } from "bun:sqlite";
import { Elysia, t } from "elysia";
import { AppError } from "../shared/errors.ts";
import type { Metrics } from "./http.metrics.ts";
import { ErrorBody } from "./http.openapi.ts";

/** `/healthz` (liveness + database) and `/metrics` (Prometheus text). */
export function healthRoutes(sqlite: Database, metrics: Metrics, version: string) {
  const ping = sqlite.query<{ ok: number }, []>("SELECT 1 AS ok");
  return new Elysia({ name: "weir-health" })
    .get(
      "/healthz",
      () => {
        try {
          ping.get();
        } catch {
          throw new AppError("database_unavailable", 503);
        }
        return { status: "ok" as const, version };
      },
      {
        response: {
          200: t.Object({ status: t.Literal("ok"), version: t.String() }),
          503: ErrorBody,
        },
        detail: {
          tags: ["system"],
          summary: "Health: 200 once migrations ran and the database answers",
        },
      },
    )
    .get(
      "/metrics",
      ({ set }) => {
        set.headers["content-type"] = "text/plain; version=0.0.4; charset=utf-8";
        return metrics.render();
      },
      { detail: { tags: ["system"], summary: "Prometheus metrics: requests, latency, memory" } },
    );
}
