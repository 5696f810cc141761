import { Type } from "@sinclair/typebox";

/**
 * Request bodies of `/api/v1/transformations` as TypeBox schemas: the service checks each body
 * against its schema before its own checks (the sandbox's syntax check among them) and the
 * routes show the same object in the API reference.
 */

export const MAX_NAME_CHARS = 200;
export const MAX_CODE_CHARS = 256 * 1024;

const CODE_EXAMPLE =
  'addHandler("transform", (request, context) => {\n  request.headers["x-source"] = "shop";\n  return request;\n});';

const Name = Type.String({
  minLength: 1,
  maxLength: MAX_NAME_CHARS,
  examples: ["Tag shop events"],
});
const Code = Type.String({
  minLength: 1,
  maxLength: MAX_CODE_CHARS,
  description: 'JavaScript: addHandler("transform", (request, context) => request).',
});

export const TransformationCreateBody = Type.Object(
  { name: Name, code: Code },
  { examples: [{ name: "Tag shop events", code: CODE_EXAMPLE }] },
);

export const TransformationUpdateBody = Type.Object(
  {
    name: Type.Optional(Type.Union([Name, Type.Null()])),
    code: Type.Optional(Type.Union([Code, Type.Null()])),
  },
  {
    description: "A missing (or null) field keeps its value.",
    examples: [{ name: "Tag EU shop events" }],
  },
);

/** A sample request: every part optional (method POST, path /, no query, headers or body). */
const SampleRequest = Type.Object(
  {
    method: Type.Optional(Type.String({ examples: ["POST"] })),
    path: Type.Optional(Type.String({ examples: ["/orders"] })),
    query: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: "Values are taken as text." }),
    ),
    body: Type.Optional(Type.Unknown({ description: "JSON, or text (parsed when it is JSON)." })),
  },
  { description: "What the script receives as `request`." },
);

const sample = {
  method: "POST",
  path: "/orders",
  query: {},
  headers: { "content-type": "application/json" },
  body: { id: 42, type: "order.created" },
};

export const TransformationTestBody = Type.Object(
  { request: SampleRequest },
  { examples: [{ request: sample }] },
);

export const UnsavedTransformationTestBody = Type.Object(
  { code: Code, request: SampleRequest },
  { examples: [{ code: CODE_EXAMPLE, request: sample }] },
);
