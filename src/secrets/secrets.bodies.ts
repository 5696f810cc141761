import { Type } from "@sinclair/typebox";
import { SECRET_NAME } from "../shared/secret-template.ts";

/**
 * Request bodies of `/api/v1/secrets` as TypeBox schemas: the service checks each body against
 * its schema before its own checks and the routes show the same object in the API reference.
 */

export const MAX_NAME_CHARS = 128;
export const MAX_VALUE_CHARS = 64 * 1024;

const Value = Type.String({
  minLength: 1,
  maxLength: MAX_VALUE_CHARS,
  description: "The secret value; never returned, logged or echoed in an error.",
});

export const SecretCreateBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: MAX_NAME_CHARS,
      pattern: SECRET_NAME.source,
      description: "Referenced as `{{NAME}}` in destinations, alert channels and scripts.",
    }),
    value: Value,
  },
  {
    examples: [
      { name: "SLACK_WEBHOOK_URL", value: "https://hooks.slack.com/services/T000/B000/XXXX" },
    ],
  },
);

export const SecretUpdateBody = Type.Object(
  { value: Value },
  { examples: [{ value: "https://hooks.slack.com/services/T000/B000/YYYY" }] },
);
