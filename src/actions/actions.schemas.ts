import { getSchemaValidator, type TSchema, t } from "elysia";
import type { FieldErrors } from "../shared/errors.ts";
import { ACTION_TYPES, type ActionType, NAME_MAX } from "./actions.model.ts";

const VARIABLE = "^[A-Za-z_][A-Za-z0-9_]*$";
const HEADERS = t.Record(t.String(), t.String(), {
  description: "Header names to values; values may hold templates.",
});
const strict = { additionalProperties: false } as const;

/**
 * The config of each action type (decisions.md §12). One schema serves the OpenAPI document and
 * the 422 of a bad config, so the two cannot drift apart.
 */
export const ACTION_CONFIGS: Record<ActionType, TSchema> = {
  condition: t.Record(t.String(), t.Unknown(), {
    description:
      'A filter object of the routing filters (e.g. `{"body.action": {"$eq": "opened"}}`); when it does not match, the actions after it do not run.',
  }),
  extract_json: t.Object(
    {
      source: t.String({
        minLength: 1,
        description:
          "Where the JSON is: `body` (the request's), `http.body` (the last http_request answer) or a template such as `$raw$`.",
      }),
      extractions: t.Array(
        t.Object(
          {
            path: t.String({
              minLength: 1,
              description: "e.g. `repository.full_name`, `items[0].id`",
            }),
            variable: t.String({ pattern: VARIABLE }),
          },
          strict,
        ),
        { minItems: 1, maxItems: 50 },
      ),
    },
    strict,
  ),
  http_request: t.Object(
    {
      url: t.String({
        minLength: 1,
        maxLength: 2048,
        description: "Absolute http(s) URL; may hold templates.",
      }),
      method: t.Union(
        ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"].map((m) => t.Literal(m)),
      ),
      headers: t.Optional(HEADERS),
      body: t.Optional(
        t.Union([t.String(), t.Record(t.String(), t.Unknown()), t.Array(t.Unknown())], {
          description: "Text, or JSON sent as JSON; templates are resolved in either.",
        }),
      ),
    },
    strict,
  ),
  run_script: t.Object(
    {
      code: t.String({
        minLength: 1,
        maxLength: 65_536,
        description:
          "JavaScript run in the sandbox with `request` and `variables`; set `variables.x = …` (or return an object) to set variables.",
      }),
    },
    strict,
  ),
  store_variable: t.Object(
    {
      name: t.String({ pattern: VARIABLE, maxLength: 64 }),
      value: t.Unknown({
        description: "Any JSON; strings may hold templates. `$x$` alone keeps x's type.",
      }),
    },
    strict,
  ),
  modify_response: t.Object(
    {
      status: t.Optional(t.Integer({ minimum: 200, maximum: 599 })),
      headers: t.Optional(HEADERS),
      body: t.Optional(t.String({ maxLength: 65_536 })),
    },
    strict,
  ),
};

const validators = Object.fromEntries(
  ACTION_TYPES.map((type) => [type, getSchemaValidator(ACTION_CONFIGS[type])]),
) as Record<ActionType, NonNullable<ReturnType<typeof getSchemaValidator>>>;

/** What the schema of `type` finds wrong with `config`, as `config.<field>` errors. */
export function configSchemaErrors(type: ActionType, config: unknown): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of validators[type].Errors(config)) {
    const field = `config${issue.path.replaceAll("/", ".")}`;
    const list = errors[field] ?? [];
    if (!list.includes(issue.message)) list.push(issue.message);
    errors[field] = list;
  }
  return errors;
}

export const ActionTypeSchema = t.Union([
  t.Literal("condition"),
  t.Literal("extract_json"),
  t.Literal("http_request"),
  t.Literal("run_script"),
  t.Literal("store_variable"),
  t.Literal("modify_response"),
]);

export const ActionSchema = t.Object({
  id: t.String(),
  type: ActionTypeSchema,
  name: t.String(),
  config: t.Record(t.String(), t.Unknown()),
  position: t.Integer({ description: "0-based execution order." }),
  enabled: t.Boolean(),
  created_at: t.String(),
  updated_at: t.String(),
});

/** The request body of a create, one variant per type (each with its own config schema). */
export const CreateActionBody = t.Union(
  ACTION_TYPES.map((type) =>
    t.Object({
      type: t.Literal(type),
      name: t.String({ minLength: 1, maxLength: NAME_MAX }),
      config: ACTION_CONFIGS[type],
      enabled: t.Optional(t.Boolean({ default: true })),
    }),
  ),
);

export const UpdateActionBody = t.Object({
  name: t.Optional(t.String({ minLength: 1, maxLength: NAME_MAX })),
  config: t.Optional(
    t.Record(t.String(), t.Unknown(), { description: "As the action's type takes it." }),
  ),
  enabled: t.Optional(t.Boolean()),
});

export const ActionResultSchema = t.Object({
  action_id: t.String(),
  type: ActionTypeSchema,
  status: t.Union([t.Literal("ok"), t.Literal("skipped"), t.Literal("error")]),
  duration_ms: t.Number(),
  output: t.Unknown(),
  error: t.Nullable(t.String()),
});

export const ReorderBody = t.Object({ action_ids: t.Array(t.String()) });

export const TestActionsBody = t.Object({
  request_id: t.Optional(t.String({ description: "A stored request of the endpoint." })),
  request: t.Optional(
    t.Object({
      method: t.Optional(t.String()),
      path: t.Optional(t.String()),
      query: t.Optional(t.Record(t.String(), t.String())),
      headers: t.Optional(t.Record(t.String(), t.String())),
      body: t.Optional(t.Unknown({ description: "Text, or JSON (sent as its JSON text)." })),
    }),
  ),
  actions: t.Optional(
    t.Array(t.Unknown(), {
      description: "Unsaved actions `{type, name?, config, enabled?}`; default: the saved chain.",
    }),
  ),
});
