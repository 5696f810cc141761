import { Elysia, t } from "elysia";
import type { AuthPorts } from "../auth/auth.room.ts";
import { documentedQuery } from "../http/http.openapi.ts";
import { notFound, validationFailed } from "../shared/errors.ts";
import { type HealthComponent, parseHealthDays } from "./health.model.ts";
import { deliveryHealth, type HealthDeps } from "./health.service.ts";
import { errorResponses, security } from "./routing.schemas.ts";

const HealthSchema = t.Object({
  data: t.Object({
    name: t.String(),
    state: t.Union([t.Literal("up"), t.Literal("degraded"), t.Literal("down")]),
    days: t.Array(
      t.Object({
        date: t.String({ description: "YYYY-MM-DD, UTC; oldest first, the last one today." }),
        attempted: t.Integer({ description: "Deliveries that ended this day, each once." }),
        delivered: t.Integer(),
      }),
    ),
  }),
});

const HealthQuery = t.Object({
  days: t.Optional(
    t.Integer({
      minimum: 1,
      maximum: 400,
      default: 90,
      description: "How many UTC days, today included.",
      example: 90,
    }),
  ),
});

const docs = (tag: string, summary: string) => ({
  response: { 200: HealthSchema, ...errorResponses },
  detail: {
    tags: [tag],
    security,
    summary,
    description:
      '`days` (1–400, default 90): daily delivery outcomes and the state now (docs/delivery.md, "Delivery health").',
    ...documentedQuery(HealthQuery),
  },
});

export interface HealthParts {
  guard: AuthPorts["guard"];
  health: HealthDeps;
}

/** `GET …/health` of a bridge and of one of its destinations: members read. */
export function healthRoutes(room: HealthParts) {
  const answer = async (
    organizationId: string,
    component: HealthComponent,
    query: Record<string, string | undefined>,
  ) => {
    const parsed = parseHealthDays(query.days);
    if ("error" in parsed) throw validationFailed({ days: [parsed.error] });
    const health = await deliveryHealth(organizationId, component, parsed.days, room.health);
    if (!health) throw notFound();
    return { data: health };
  };
  return new Elysia({ name: "weir-health", prefix: "/api/v1/bridges/:id" })
    .use(room.guard())
    .get(
      "/health",
      ({ principal, params, query }) =>
        answer(principal.organizationId, { bridge_id: params.id }, query),
      docs("bridges", "A bridge's delivery health: its state and daily outcomes"),
    )
    .get(
      "/destinations/:destination_id/health",
      async ({ principal, params, query }) => {
        // The destination must be this bridge's, as under every route of the bridge's path.
        const owner = await room.health.bridges.describeDestination(params.destination_id);
        if (owner?.bridgeId !== params.id) throw notFound();
        return answer(principal.organizationId, { destination_id: params.destination_id }, query);
      },
      docs("destinations", "A destination's delivery health: its state and daily outcomes"),
    );
}
