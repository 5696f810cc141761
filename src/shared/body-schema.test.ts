import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { bodyProblems, fieldName, schemaProblems } from "./body-schema.ts";

const Body = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 5 }),
  kind: Type.Optional(Type.Union([Type.Literal("a"), Type.Literal("b")])),
  retries: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 3 }), Type.Null()])),
  items: Type.Optional(Type.Array(Type.Object({ url: Type.String(), on: Type.Boolean() }))),
  list: Type.Optional(
    Type.Union([Type.Array(Type.Object({ on: Type.Optional(Type.Boolean()) })), Type.Null()]),
  ),
});

describe("a body checked against its schema", () => {
  test("field names are those of 422 answers", () => {
    expect(fieldName("/destinations/0/url")).toBe("destinations[0].url");
    expect(fieldName("/condition/type")).toBe("condition.type");
    expect(fieldName("/headers/a~1b")).toBe("headers.a/b");
  });

  test.each([
    [{}, { name: ["is required"] }],
    [{ name: "" }, { name: ["is required"] }],
    [{ name: "toolong" }, { name: ["must be at most 5 characters"] }],
    [{ name: "x", kind: "c" }, { kind: ["must be one of a, b"] }],
    [{ name: "x", retries: 1.5 }, { retries: ["must be a whole number"] }],
    [{ name: "x", retries: null }, {}],
    [{ name: "x", items: [{ url: "u", on: "yes" }] }, { "items[0].on": ["must be true or false"] }],
    [{ name: "x", unknown: 1 }, {}],
    [{ name: "x", list: [{ on: "no" }] }, { "list[0].on": ["must be true or false"] }],
    [{ name: "x", list: null }, {}],
    [[], { name: ["is required"] }],
  ])("%j → %j", (body, problems) => {
    expect(schemaProblems(Body, body)).toEqual(problems);
  });

  test("the room's own message wins, and nothing is reported twice around one field", () => {
    const body = { items: "nope", name: "" };
    const own = { name: ["is required (a name)"], items: ["must be an array of items"] };
    expect(bodyProblems(Body, body, own)).toEqual(own);
    const nested = { name: "x", items: [{ on: 1 }] };
    expect(bodyProblems(Body, nested, { "items[0]": ["is not an item"] })).toEqual({
      "items[0]": ["is not an item"],
    });
    expect(bodyProblems(Body, { name: "x", kind: "z" }, { name: ["taken"] })).toEqual({
      kind: ["must be one of a, b"],
      name: ["taken"],
    });
  });
});
