import { Elysia, t } from "elysia";
import { schemaBody } from "../http/http.openapi.ts";
import { checkDuplicates } from "./dedup-check.service.ts";
import { checkFilters, type FilterCheckDeps } from "./filter-check.service.ts";
import { DedupCheckBody, FilterCheckBody } from "./routing.bodies.ts";
import type { RoutingParts } from "./routing.room.ts";
import { errorResponses, security } from "./routing.schemas.ts";
import { requireSource } from "./sources.service.ts";

const FilterCheckAnswer = t.Object({
  data: t.Object({
    valid: t.Literal(true),
    results: t.Array(
      t.Object({
        event_id: t.String(),
        created_at: t.String(),
        matched: t.Boolean(),
        failed: t.Nullable(
          t.Object(
            {
              filter: t.Integer({ description: "Index of the filter object that failed." }),
              path: t.String({ description: "Its failing term: a field path, or $or/$and/$not." }),
            },
            { description: "A rejected event: the first term it failed." },
          ),
        ),
        over_budget: t.Optional(
          t.Literal(true, { description: "Ran out of the filter budget: ingest fails it." }),
        ),
      }),
      { description: "Empty when neither event_id nor source_id was sent." },
    ),
  }),
});

const DedupCheckAnswer = t.Object({
  data: t.Object({
    duplicate: t.Boolean({
      description: "b would be refused as a duplicate of a (within the window).",
    }),
    enabled: t.Boolean({ description: "false: the settings are off, so nothing is a duplicate." }),
    key_a: t.String({ description: "SHA-256 (hex) of what the settings select from a." }),
    key_b: t.String(),
    window_seconds: t.Integer({ description: "How long a key is remembered (ttl_seconds)." }),
  }),
});

/**
 * Dry runs for the editors (decisions.md §8): a draft filter list against stored events, and two
 * requests under a source's deduplication settings. They read, store nothing and run no user code,
 * so members may use them.
 */
export function checksRoutes(
  room: RoutingParts,
  bounds: Pick<FilterCheckDeps, "limits" | "budget">,
) {
  const filters: FilterCheckDeps = {
    ...bounds,
    events: room.events.events,
    requireSource: (organizationId, sourceId) =>
      requireSource(organizationId, sourceId, room.sources),
  };
  return new Elysia()
    .use(room.guard())
    .post(
      "/api/v1/filters/test",
      async ({ principal, body }) => ({
        data: await checkFilters(principal.organizationId, body, filters),
      }),
      {
        response: { 200: FilterCheckAnswer, ...errorResponses },
        detail: {
          tags: ["destinations"],
          security,
          summary: `Validate a filter list and try it on an event or a source's latest events (at most 20)`,
          requestBody: schemaBody(FilterCheckBody),
        },
      },
    )
    .post(
      "/api/v1/sources/:id/dedup/check",
      async ({ principal, params, body }) => {
        const source = await requireSource(principal.organizationId, params.id, room.sources);
        return { data: checkDuplicates(source, body) };
      },
      {
        response: { 200: DedupCheckAnswer, ...errorResponses },
        detail: {
          tags: ["sources"],
          security,
          summary: "Would two requests be duplicates under the source's (or draft) dedup settings?",
          requestBody: schemaBody(DedupCheckBody),
        },
      },
    );
}
