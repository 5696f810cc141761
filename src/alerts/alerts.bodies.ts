import { type TLiteral, Type } from "@sinclair/typebox";
import { CHANNEL_TYPES, CONDITION_TYPES, NAME_MAX } from "./alerts.model.ts";

/**
 * Request bodies of `/api/v1/alert-rules` as TypeBox schemas: the service checks each body
 * against its schema before its own checks (per-type values, channel addresses against the
 * outbound policy) and the routes show the same object in the API reference.
 */

const oneOf = <T extends readonly string[]>(values: T) =>
  Type.Union(values.map((value) => Type.Literal(value)) as TLiteral<T[number]>[]);

const SECRET_NOTE = " May hold `{{SECRET_NAME}}`.";

const Condition = Type.Object({
  type: oneOf(CONDITION_TYPES),
  value: Type.Optional(
    Type.Union([Type.Number(), Type.Null()], {
      description:
        "occurrence_threshold: a whole count (≥ 1); open_for_days: days (> 0); none for the others.",
    }),
  ),
});

const Channel = Type.Object(
  {
    type: oneOf(CHANNEL_TYPES),
    webhook_url: Type.Optional(
      Type.String({ description: `slack, discord: required.${SECRET_NOTE}` }),
    ),
    bot_token: Type.Optional(Type.String({ description: `telegram: required.${SECRET_NOTE}` })),
    chat_id: Type.Optional(
      Type.Union([Type.String(), Type.Integer()], { description: "telegram: required." }),
    ),
    url: Type.Optional(Type.String({ description: `webhook: required.${SECRET_NOTE}` })),
    to: Type.Optional(
      Type.Array(Type.String(), {
        description: "email: required, 1 to 10 addresses (the server needs WEIR_SMTP_URL).",
      }),
    ),
    headers: Type.Optional(
      Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()], {
        description: `webhook only.${SECRET_NOTE}`,
      }),
    ),
  },
  { description: "Where alerts go; replaced whole on update." },
);

const ruleFields = {
  name: Type.String({ minLength: 1, maxLength: NAME_MAX, examples: ["Billing API failing"] }),
  condition: Condition,
  channel: Channel,
  enabled: Type.Optional(Type.Boolean({ default: true })),
};

export const RuleCreateBody = Type.Object(ruleFields, {
  examples: [
    {
      name: "Billing API failing",
      condition: { type: "occurrence_threshold", value: 5 },
      channel: { type: "slack", webhook_url: "{{SLACK_URL}}" },
    },
  ],
});

export const RuleUpdateBody = Type.Partial(Type.Object(ruleFields), {
  description: "Any of name, condition, channel (whole), enabled.",
  examples: [{ enabled: false }],
});
