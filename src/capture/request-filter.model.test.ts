import { describe, expect, test } from "bun:test";
import { AppError } from "../shared/errors.ts";
import { isFiltered, NO_FILTER, parseRequestFilter } from "./request-filter.model.ts";
import { wordQuery } from "./requests.repo.ts";

const fieldsOf = (query: Record<string, unknown>) => {
  try {
    parseRequestFilter(query);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return Object.keys(((error as AppError).details.errors ?? {}) as object);
  }
};

describe("request list filter", () => {
  test("nothing given is no filter", () => {
    expect(parseRequestFilter({})).toEqual(NO_FILTER);
    expect(isFiltered(parseRequestFilter({ q: "  ", method: "" }))).toBe(false);
  });

  test("methods are upper-cased and de-duplicated; instants normalized to UTC milliseconds", () => {
    expect(
      parseRequestFilter({
        q: " order A-17 ",
        method: "post, PUT,post",
        since: "2026-01-31",
        until: "2026-01-31T14:00:00+02:00",
      }),
    ).toEqual({
      q: "order A-17",
      methods: ["POST", "PUT"],
      since: "2026-01-31T00:00:00.000Z",
      until: "2026-01-31T12:00:00.000Z",
      verification: [],
    });
  });

  test.each([
    [{ since: "yesterday" }, ["since"]],
    [{ until: "2026-13-45" }, ["until"]],
    [{ since: "1700000000" }, ["since"]],
    [{ since: "2026-02-01", until: "2026-01-01" }, ["until"]],
    [{ method: "PO ST" }, ["method"]],
    [{ q: "x".repeat(257) }, ["q"]],
    [{ q: ["a", "b"] }, ["q"]],
  ])("%j is a 422 naming %j", (query, fields) => {
    expect(fieldsOf(query)).toEqual(fields);
  });
});

describe("word query of the search index", () => {
  test.each([
    ["order", '"order"*'],
    ["needle-4711", '"4711"*'],
    ["invoice.paid event", '"paid" "event"*'],
    ["-4711-", '"4711"'],
    ['say "hi"', '"hi"'],
    ["{}", null],
    ["café", '"café"*'],
  ])("%s → %s", (q, expected) => {
    expect(wordQuery(q)).toBe(expected);
  });
});
