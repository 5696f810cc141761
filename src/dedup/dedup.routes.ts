import { Elysia, t } from "elysia";
import type { AuthPorts } from "../auth/auth.room.ts";
import { ErrorBody, ValidationErrorBody } from "../http/http.openapi.ts";
import type { DedupPorts } from "./dedup.room.ts";
import { parseStatsPeriod } from "./dedup.service.ts";

const SourceStatsSchema = t.Object({
  total_requests: t.Integer({ description: "Every ingest in the period, duplicates included." }),
  duplicates_rejected: t.Integer(),
  duplicate_rate: t.Number({
    description: "duplicates_rejected ÷ total_requests × 100; 0 if none.",
  }),
  rejected_unverified: t.Integer({
    description:
      "Ingests refused with 401 signature_invalid (the source's verification setting); not in total_requests.",
  }),
  period: t.Union([t.Literal("all_time"), t.Literal("24h"), t.Literal("7d"), t.Literal("30d")]),
});

export interface DedupRoutesPorts {
  guard: AuthPorts["guard"];
  /** The caller's source or a 404 (another organization's source is a 404 too). */
  requireSource: (organizationId: string, sourceId: string) => unknown;
  sourceStats: DedupPorts["sourceStats"];
}

/** `GET /api/v1/sources/{id}/stats` (interface.md "Sources and deduplication", decisions §12). */
export function dedupRoutes(ports: DedupRoutesPorts) {
  return new Elysia({ name: "weir-dedup", prefix: "/api/v1/sources" }).use(ports.guard()).get(
    "/:id/stats",
    async ({ principal, params, query }) => {
      const period = parseStatsPeriod(query.period);
      await ports.requireSource(principal.organizationId, params.id);
      // Bare, as interface.md shows it, unlike the `data` envelope of other source reads.
      return ports.sourceStats(params.id, period);
    },
    {
      query: t.Object({ period: t.Optional(t.String()) }),
      response: {
        200: SourceStatsSchema,
        401: ErrorBody,
        403: ErrorBody,
        404: ErrorBody,
        422: ValidationErrorBody,
      },
      detail: {
        tags: ["sources"],
        summary: "Ingest and duplicate counts of a source, all time or over 24h, 7d or 30d",
        parameters: [
          {
            name: "period",
            in: "query",
            required: false,
            schema: { type: "string", enum: ["24h", "7d", "30d"] },
          },
        ],
      },
    },
  );
}
