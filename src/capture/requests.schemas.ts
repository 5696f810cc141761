import { t } from "elysia";
import { VerificationVerdict } from "../verification/verification.schemas.ts";

/** A stored request as every API family shows it (interface.md, Requests). */
export const CapturedRequestSchema = t.Object({
  id: t.String(),
  debug_endpoint_id: t.String(),
  method: t.String(),
  path: t.String({ description: 'Sub-path after the slug; "" when none.' }),
  query_string: t.String(),
  headers: t.Record(t.String(), t.String(), {
    description: 'Lowercased names; repeated headers joined with ", ".',
  }),
  raw_headers: t.Array(t.Tuple([t.String(), t.String()]), {
    description: "[name, value] pairs in the order received.",
  }),
  body: t.String({ description: "UTF-8 text, or base64 when body_encoding is base64." }),
  body_encoding: t.Union([t.Literal("utf8"), t.Literal("base64")]),
  body_truncated: t.Optional(
    t.Boolean({
      description:
        "Lists only: the body is longer than 64 KiB and only its first 64 KiB are shown; get the request or …/body for all of it.",
    }),
  ),
  body_size: t.Optional(t.Integer({ description: "With body_truncated: the whole body's bytes." })),
  content_type: t.Nullable(t.String()),
  size: t.Integer({ description: "Body size in bytes." }),
  remote_ip: t.Nullable(t.String()),
  status: t.String({ description: "Status code answered to the sender." }),
  created_at: t.String(),
  verification: VerificationVerdict,
});
