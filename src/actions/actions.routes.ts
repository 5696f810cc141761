import { Elysia, type TSchema, t } from "elysia";
import { requirePermission } from "../auth/auth.guard.ts";
import type { AuthPorts } from "../auth/auth.room.ts";
import { ErrorBody, ValidationErrorBody } from "../http/http.openapi.ts";
import { presentAction } from "./actions.present.ts";
import {
  ActionResultSchema,
  ActionSchema,
  CreateActionBody,
  ReorderBody,
  TestActionsBody,
  UpdateActionBody,
} from "./actions.schemas.ts";
import {
  type ActionsDeps,
  createAction,
  deleteAction,
  getAction,
  listActions,
  reorderActions,
  updateAction,
} from "./actions.service.ts";
import { listRunResults, runAgain, type TryoutDeps, tryActions } from "./actions.tryout.ts";

const tags = ["actions"];
const security: Record<string, string[]>[] = [{ bearer: [] }, { apiKey: [] }];
const errors = { 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ValidationErrorBody };
const One = t.Object({ data: ActionSchema });
const Many = t.Object({ data: t.Array(ActionSchema) });
const Results = t.Object({ data: t.Array(ActionResultSchema) });

const jsonBody = (description: string, schema: TSchema) => ({
  required: true,
  description,
  content: { "application/json": { schema: JSON.parse(JSON.stringify(schema)) } },
});

/**
 * `/api/v1/endpoints/{id}/actions` (interface.md, Actions; decisions.md §13, §15): members read,
 * admins change the chain and run it. Bodies are checked by the service, so a bad one is the
 * 422 of decisions.md §4 naming each field (`config.url`), never Elysia's own.
 */
export function actionsRoutes(
  deps: { actions: ActionsDeps; tryout: TryoutDeps },
  guard: AuthPorts["guard"],
) {
  const { actions, tryout } = deps;
  return new Elysia({ name: "weir-actions", prefix: "/api/v1/endpoints" })
    .use(guard())
    .get(
      "/:id/actions",
      ({ principal, params }) => ({
        data: listActions(principal, params.id, actions).map(presentAction),
      }),
      {
        response: { 200: Many, ...errors },
        detail: { tags, security, summary: "List an endpoint's actions in run order" },
      },
    )
    .post(
      "/:id/actions",
      ({ principal, params, body, set }) => {
        requirePermission(principal, "write");
        const action = createAction(principal, params.id, body, actions);
        set.status = 201;
        return { data: presentAction(action) };
      },
      {
        response: { 201: One, ...errors },
        detail: {
          tags,
          security,
          summary:
            "Append an action (admin); 403 feature_not_available on a plan without actions, 403 action_limit_reached at the plan's cap",
          requestBody: jsonBody(
            "`{type, name, config, enabled?}`; config by type",
            CreateActionBody,
          ),
        },
      },
    )
    .put(
      "/:id/actions/reorder",
      ({ principal, params, body }) => {
        requirePermission(principal, "write");
        return { data: reorderActions(principal, params.id, body, actions).map(presentAction) };
      },
      {
        response: { 200: Many, ...errors },
        detail: {
          tags,
          security,
          summary: "Set the run order: action_ids lists every action of the endpoint once (admin)",
          requestBody: jsonBody("`{action_ids}`", ReorderBody),
        },
      },
    )
    .post(
      "/:id/actions/test",
      async ({ principal, params, body }) => {
        requirePermission(principal, "write");
        return { data: await tryActions(principal, params.id, body, tryout) };
      },
      {
        response: { 200: Results, ...errors },
        detail: {
          tags,
          security,
          summary:
            "Run the chain (or unsaved actions) on a stored or sample request with no side effect (admin)",
          requestBody: jsonBody("`{request_id | request, actions?}`", TestActionsBody),
        },
      },
    )
    .get(
      "/:id/actions/:action_id",
      ({ principal, params }) => ({
        data: presentAction(getAction(principal, params.id, params.action_id, actions)),
      }),
      { response: { 200: One, ...errors }, detail: { tags, security, summary: "Get one action" } },
    )
    .patch(
      "/:id/actions/:action_id",
      ({ principal, params, body }) => {
        requirePermission(principal, "write");
        const action = updateAction(principal, params.id, params.action_id, body, actions);
        return { data: presentAction(action) };
      },
      {
        response: { 200: One, ...errors },
        detail: {
          tags,
          security,
          summary: "Change name, config and/or enabled (admin)",
          requestBody: jsonBody("`{name?, config?, enabled?}`", UpdateActionBody),
        },
      },
    )
    .delete(
      "/:id/actions/:action_id",
      ({ principal, params, set }) => {
        requirePermission(principal, "write");
        deleteAction(principal, params.id, params.action_id, actions);
        set.status = 204;
      },
      {
        response: { 204: t.Void(), ...errors },
        detail: { tags, security, summary: "Delete an action (admin)" },
      },
    )
    .get(
      "/:id/requests/:request_id/actions",
      async ({ principal, params }) => ({
        data: await listRunResults(principal, params.id, params.request_id, tryout),
      }),
      {
        response: { 200: Results, ...errors },
        detail: { tags, security, summary: "The latest action run of a captured request" },
      },
    )
    .post(
      "/:id/requests/:request_id/actions/run",
      async ({ principal, params, set }) => {
        requirePermission(principal, "write");
        const data = await runAgain(principal, params.id, params.request_id, tryout);
        set.status = 201;
        return { data };
      },
      {
        response: { 201: Results, ...errors },
        detail: {
          tags,
          security,
          summary: "Run the current chain on a stored request now, with its effects (admin)",
        },
      },
    );
}
