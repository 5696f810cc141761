import { type TLiteral, type TUnion, Type } from "@sinclair/typebox";
import { HMAC_ALGORITHMS, SIGNATURE_ENCODINGS, VERIFICATION_TYPES } from "./verification.model.ts";

/**
 * The `verification` setting and verdict as TypeBox schemas: bodies of debug endpoints and
 * sources are checked and documented with `VerificationBody`, answers with the others.
 */
// Typed as one literal of the union: an array of literals would infer `never`.
const oneOf = <T extends readonly string[]>(values: T, description?: string) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    description ? { description } : {},
  ) as unknown as TUnion<[TLiteral<T[number]>]>;

const hmacOnly = (description: string) => ({ description: `hmac only: ${description}` });

const verificationMembers = {
  tolerance_seconds: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 86_400,
      description:
        "stripe, slack, standard_webhooks and hmac with {timestamp}: how far the signed timestamp may be from now (default 300).",
    }),
  ),
  header: Type.Optional(Type.String(hmacOnly("the header carrying the signature."))),
  algorithm: Type.Optional(oneOf(HMAC_ALGORITHMS, "hmac only (default sha256).")),
  encoding: Type.Optional(oneOf(SIGNATURE_ENCODINGS, "hmac only (default hex).")),
  prefix: Type.Optional(
    Type.String(hmacOnly('text before the signature in the header, e.g. "sha256=".')),
  ),
  signed: Type.Optional(
    Type.String(hmacOnly('what is signed: "{body}" (default) or e.g. "{timestamp}.{body}".')),
  ),
  timestamp_header: Type.Optional(
    Type.String(hmacOnly("the header carrying {timestamp} (seconds).")),
  ),
};

/** `verification` in a create or update body; null removes it. */
export const VerificationBody = Type.Union(
  [
    Type.Object(
      {
        type: oneOf(VERIFICATION_TYPES),
        secret: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 1024,
            description:
              "The signing secret from the provider's dashboard, or {{SECRET_NAME}}. Stored encrypted, never returned. Required on create and when the type changes; an update without it keeps the stored one.",
          }),
        ),
        ...verificationMembers,
      },
      { description: "Inbound signature check (docs/verification.md); null removes it." },
    ),
    Type.Null(),
  ],
  {
    examples: [{ type: "github", secret: "{{GITHUB_WEBHOOK_SECRET}}" }],
  },
);

/** `verification` as endpoints and sources show it: never the secret. */
export const VerificationView = Type.Union([
  Type.Object({
    type: oneOf(VERIFICATION_TYPES),
    secret_set: Type.Boolean(),
    ...verificationMembers,
  }),
  Type.Null(),
]);

/** The verdict recorded on a captured request. */
export const VerificationVerdict = Type.Object(
  {
    status: Type.Union([
      Type.Literal("valid"),
      Type.Literal("invalid"),
      Type.Literal("missing"),
      Type.Literal("not_configured"),
    ]),
    reason: Type.Union([Type.String(), Type.Null()]),
  },
  {
    description:
      "Signature check of the endpoint's verification setting: valid, invalid, missing (no signature header) or not_configured.",
  },
);
