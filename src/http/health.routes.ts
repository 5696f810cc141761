import { timingSafeEqual } from "node:crypto";
import { Elysia, t } from "elysia";
import type { DiskGuard } from "../shared/disk-guard.ts";
import { AppError } from "../shared/errors.ts";
import type { Metrics } from "./http.metrics.ts";
import { documentedAnswer, ErrorBody, PUBLIC } from "./http.openapi.ts";

/**
 * `/healthz` (liveness + database + free disk) and `/metrics` (Prometheus text). A data dir
 * short of free space is unhealthy (503 `insufficient_storage`): captures are being refused.
 * With `metricsToken` set (`WEIR_METRICS_TOKEN`), `/metrics` answers only
 * `Authorization: Bearer <token>`.
 */
export function healthRoutes(
  ping: () => void | Promise<void>,
  metrics: Metrics,
  version: string,
  options: { metricsToken?: string; disk?: Pick<DiskGuard, "isLow"> } = {},
) {
  const allowed = bearerCheck(options.metricsToken ?? "");
  return new Elysia({ name: "weir-health" })
    .get(
      "/healthz",
      async () => {
        try {
          await ping();
        } catch {
          throw new AppError("database_unavailable", 503);
        }
        if (options.disk?.isLow()) throw new AppError("insufficient_storage", 503);
        return { status: "ok" as const, version };
      },
      {
        response: {
          200: t.Object({ status: t.Literal("ok"), version: t.String() }),
          503: ErrorBody,
        },
        detail: {
          tags: ["system"],
          summary:
            "Health: 200 once migrations ran and the database answers; 503 when it does not, or when the data dir is below min_free_disk_mb",
          ...PUBLIC,
        },
      },
    )
    .get(
      "/metrics",
      ({ set, request }) => {
        if (!allowed(request.headers.get("authorization"))) {
          set.headers["www-authenticate"] = 'Bearer realm="metrics"';
          throw new AppError("unauthorized", 401);
        }
        set.headers["content-type"] = "text/plain; version=0.0.4; charset=utf-8";
        return metrics.render();
      },
      {
        detail: {
          tags: ["system"],
          summary: "Prometheus metrics: requests, latency, memory",
          description:
            "Public unless WEIR_METRICS_TOKEN is set; then `Authorization: Bearer <that token>` is required (401 otherwise).",
          ...PUBLIC,
          ...documentedAnswer(200, "Prometheus text format (text/plain; version=0.0.4)"),
        },
      },
    );
}

/** True when no token is configured, or the header carries it (compared in constant time). */
function bearerCheck(token: string): (authorization: string | null) => boolean {
  if (token === "") return () => true;
  const expected = Buffer.from(token);
  return (authorization) => {
    const given = Buffer.from(/^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1] ?? "");
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
}
