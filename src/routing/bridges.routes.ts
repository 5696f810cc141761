import { Elysia, t } from "elysia";
import { requirePermission } from "../auth/auth.guard.ts";
import type { Principal } from "../auth/auth.model.ts";
import { schemaBody } from "../http/http.openapi.ts";
import {
  createBridge,
  deleteBridge,
  getBridge,
  listBridges,
  updateBridge,
} from "./bridges.service.ts";
import {
  addDestination,
  deleteDestination,
  getDestination,
  listDestinations,
  rotateSecret,
  updateDestination,
} from "./destinations.service.ts";
import {
  BridgeCreateBody,
  BridgeUpdateBody,
  DestinationBody,
  DestinationUpdateBody,
} from "./routing.bodies.ts";
import type { RoutingParts } from "./routing.room.ts";
import {
  BridgeSchema,
  DestinationSchema,
  errorResponses,
  nameErrorResponses,
  security,
} from "./routing.schemas.ts";

const bridgeTags = ["bridges"];
const destTags = ["destinations"];
const OneBridge = t.Object({ data: BridgeSchema });
const OneDestination = t.Object({ data: DestinationSchema });

const admin = (principal: Principal) => {
  requirePermission(principal, "write");
  return principal.organizationId;
};

/** Bridges CRUD (decisions.md §8): members read, admins write. */
function bridgeRoutes(room: RoutingParts) {
  const deps = room.bridges;
  const update = {
    response: { 200: OneBridge, ...errorResponses },
    detail: {
      tags: bridgeTags,
      security,
      summary: "Rename, pause or resume a bridge (admin)",
      requestBody: schemaBody(BridgeUpdateBody),
    },
  };
  return new Elysia({ prefix: "/api/v1/bridges" })
    .use(room.guard())
    .get(
      "/",
      async ({ principal }) => ({ data: await listBridges(principal.organizationId, deps) }),
      {
        response: { 200: t.Object({ data: t.Array(BridgeSchema) }), ...errorResponses },
        detail: { tags: bridgeTags, security, summary: "List bridges with their destinations" },
      },
    )
    .post(
      "/",
      async ({ principal, body, set }) => {
        const data = await createBridge(admin(principal), body, deps);
        set.status = 201;
        return { data };
      },
      {
        response: { 201: OneBridge, ...nameErrorResponses },
        detail: {
          tags: bridgeTags,
          security,
          summary: "Create a bridge with its source and destinations (admin)",
          description:
            "Each http destination's `signing_secret` appears once, in `data.destinations[]` of this answer.",
          requestBody: schemaBody(BridgeCreateBody),
        },
      },
    )
    .get(
      "/:id",
      async ({ principal, params }) => ({
        data: await getBridge(principal.organizationId, params.id, deps),
      }),
      {
        response: { 200: OneBridge, ...errorResponses },
        detail: { tags: bridgeTags, security, summary: "Get a bridge with its destinations" },
      },
    )
    .patch(
      "/:id",
      async ({ principal, params, body }) => ({
        data: await updateBridge(admin(principal), params.id, body, deps),
      }),
      update,
    )
    .put(
      "/:id",
      async ({ principal, params, body }) => ({
        data: await updateBridge(admin(principal), params.id, body, deps),
      }),
      update,
    )
    .delete(
      "/:id",
      async ({ principal, params, set }) => {
        await deleteBridge(admin(principal), params.id, deps);
        set.status = 204;
      },
      {
        response: { 204: t.Void(), ...errorResponses },
        detail: {
          tags: bridgeTags,
          security,
          summary: "Delete a bridge and its destinations (admin)",
        },
      },
    );
}

/** Destinations under `/api/v1/bridges/{id}/destinations` (decisions.md §8). */
function destinationRoutes(room: RoutingParts) {
  const deps = room.bridges;
  const update = {
    response: { 200: OneDestination, ...errorResponses },
    detail: {
      tags: destTags,
      security,
      summary: "Change a destination's fields (admin)",
      requestBody: schemaBody(DestinationUpdateBody),
    },
  };
  return new Elysia({ prefix: "/api/v1/bridges/:id/destinations" })
    .use(room.guard())
    .get(
      "/",
      async ({ principal, params }) => ({
        data: await listDestinations(principal.organizationId, params.id, deps),
      }),
      {
        response: { 200: t.Object({ data: t.Array(DestinationSchema) }), ...errorResponses },
        detail: { tags: destTags, security, summary: "List a bridge's destinations" },
      },
    )
    .post(
      "/",
      async ({ principal, params, body, set }) => {
        const data = await addDestination(admin(principal), params.id, body, deps);
        set.status = 201;
        return { data };
      },
      {
        response: { 201: OneDestination, ...errorResponses },
        detail: {
          tags: destTags,
          security,
          summary: "Add a destination; an http one's signing_secret is shown here once (admin)",
          requestBody: schemaBody(DestinationBody),
        },
      },
    )
    .get(
      "/:destination_id",
      async ({ principal, params }) => ({
        data: await getDestination(
          principal.organizationId,
          params.id,
          params.destination_id,
          deps,
        ),
      }),
      {
        response: { 200: OneDestination, ...errorResponses },
        detail: { tags: destTags, security, summary: "Get a destination (never its secret)" },
      },
    )
    .patch(
      "/:destination_id",
      async ({ principal, params, body }) => ({
        data: await updateDestination(
          admin(principal),
          params.id,
          params.destination_id,
          body,
          deps,
        ),
      }),
      update,
    )
    .put(
      "/:destination_id",
      async ({ principal, params, body }) => ({
        data: await updateDestination(
          admin(principal),
          params.id,
          params.destination_id,
          body,
          deps,
        ),
      }),
      update,
    )
    .delete(
      "/:destination_id",
      async ({ principal, params, set }) => {
        await deleteDestination(admin(principal), params.id, params.destination_id, deps);
        set.status = 204;
      },
      {
        response: { 204: t.Void(), ...errorResponses },
        detail: { tags: destTags, security, summary: "Delete a destination (admin)" },
      },
    )
    .post(
      "/:destination_id/rotate-secret",
      async ({ principal, params }) => ({
        data: await rotateSecret(admin(principal), params.id, params.destination_id, deps),
      }),
      {
        response: {
          200: t.Object({ data: t.Object({ signing_secret: t.String() }) }),
          ...errorResponses,
        },
        detail: {
          tags: destTags,
          security,
          summary:
            "Rotate an http destination's signing secret; the old one signs for 24 h more (admin)",
        },
      },
    );
}

export function bridgesRoutes(room: RoutingParts) {
  return new Elysia({ name: "weir-bridges" }).use(bridgeRoutes(room)).use(destinationRoutes(room));
}
