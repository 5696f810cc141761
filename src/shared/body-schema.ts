import type { TSchema } from "@sinclair/typebox";
import { type ValueError, ValueErrorType } from "@sinclair/typebox/errors";
import { Value } from "@sinclair/typebox/value";
import type { FieldErrors } from "./errors.ts";

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema keywords are open-ended.
type Json = Record<string, any>;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `/destinations/0/url` as the field name 422 answers use: `destinations[0].url`. */
export function fieldName(pointer: string): string {
  let name = "";
  for (const raw of pointer.split("/").slice(1)) {
    const part = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (/^\d+$/.test(part)) name += `[${part}]`;
    else name += name === "" ? part : `.${part}`;
  }
  return name;
}

const literalsOf = (schema: Json): unknown[] | null => {
  const members = schema.anyOf as Json[] | undefined;
  if (!members?.every((m) => "const" in m)) return null;
  return members.map((m) => m.const);
};

const nonNullMember = (schema: Json): Json | null => {
  const members = (schema.anyOf ?? []) as Json[];
  const rest = members.filter((m) => m.type !== "null");
  return rest.length === 1 && members.length === 2 ? (rest[0] as Json) : null;
};

/** The message of a value that is not of `schema`'s type. */
function expected(schema: Json): string {
  const literals = literalsOf(schema);
  if (literals) return `must be one of ${literals.join(", ")}`;
  const member = nonNullMember(schema);
  if (member) return expected(member);
  if ("const" in schema) return `must be ${schema.const}`;
  switch (schema.type) {
    case "string":
      return "must be a string";
    case "integer":
      return "must be a whole number";
    case "number":
      return "must be a number";
    case "boolean":
      return "must be true or false";
    case "array":
      return "must be an array";
    case "object":
      return "must be an object";
    default:
      return "is not valid";
  }
}

function messageOf(error: ValueError): string {
  const schema = error.schema as Json;
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return "is required";
    case ValueErrorType.StringMinLength:
      return schema.minLength === 1
        ? "is required"
        : `must be at least ${schema.minLength} characters`;
    case ValueErrorType.StringMaxLength:
      return `must be at most ${schema.maxLength} characters`;
    case ValueErrorType.StringPattern:
      return `must match ${schema.pattern}`;
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return `must be at least ${schema.minimum}`;
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return `must be at most ${schema.maximum}`;
    case ValueErrorType.IntegerExclusiveMinimum:
    case ValueErrorType.NumberExclusiveMinimum:
      return `must be above ${schema.exclusiveMinimum}`;
    case ValueErrorType.ArrayMinItems:
      return `must have at least ${schema.minItems} items`;
    case ValueErrorType.ArrayMaxItems:
      return `must have at most ${schema.maxItems} items`;
    default:
      return expected(schema);
  }
}

const related = (a: string, b: string) =>
  a === b ||
  a.startsWith(`${b}.`) ||
  a.startsWith(`${b}[`) ||
  b.startsWith(`${a}.`) ||
  b.startsWith(`${a}[`);

/**
 * The fields of a JSON request body that its schema (the one the API reference shows) rejects,
 * one message per field, named as 422 answers name them. A body that is no object is checked as
 * `{}`, so it fails on the required fields as the rooms' own checks do.
 */
export function schemaProblems(schema: TSchema, body: unknown): FieldErrors {
  const problems: FieldErrors = {};
  for (const [pointer, message] of errorsOf(schema, isPlainObject(body) ? body : {}, "")) {
    const field = fieldName(pointer);
    if (field === "" || problems[field]) continue;
    if (Object.keys(problems).some((known) => related(known, field))) continue;
    problems[field] = [message];
  }
  return problems;
}

/**
 * TypeBox stops at a union that fails; a value that is not null under "X or null" is checked
 * against X itself, so the problem is named where it is (`destinations[0].name`, not
 * `destinations`).
 */
function* errorsOf(schema: TSchema, value: unknown, base: string): Generator<[string, string]> {
  for (const error of Value.Errors(schema, value)) {
    const member = error.type === ValueErrorType.Union ? nonNullMember(error.schema) : null;
    if (member && error.value !== null)
      yield* errorsOf(member as TSchema, error.value, base + error.path);
    else yield [base + error.path, messageOf(error)];
  }
}

/**
 * A body's problems: the schema's, then the room's own checks (which know what a schema cannot:
 * filters, URLs against the outbound policy, secret templates). The room's message wins for a
 * field both name, and a schema problem inside or above a field the room named is dropped, so
 * each field is reported once, in the room's words where it has them.
 */
export function bodyProblems(schema: TSchema, body: unknown, own: FieldErrors): FieldErrors {
  const merged: FieldErrors = {};
  for (const [field, messages] of Object.entries(schemaProblems(schema, body))) {
    if (!Object.keys(own).some((known) => related(known, field))) merged[field] = messages;
  }
  return { ...merged, ...own };
}
