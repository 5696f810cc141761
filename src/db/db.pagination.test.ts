import { describe, expect, test } from "bun:test";
import { AppError } from "../shared/errors.ts";
import { genericPage, pageInfo, parsePageRequest } from "./db.pagination.ts";

describe("parsePageRequest", () => {
  const ok: Array<[Record<string, unknown>, number, number, number]> = [
    [{}, 1, 20, 0],
    [{ page: "3" }, 3, 20, 40],
    [{ page: "2", page_size: "5" }, 2, 5, 5],
    [{ page_size: "100" }, 1, 100, 0],
    [{ page_size: "101" }, 1, 100, 0],
    [{ page_size: "100000", page: "2" }, 2, 100, 100],
    [{ page: "" }, 1, 20, 0],
  ];
  for (const [query, page, pageSize, offset] of ok) {
    test(`${JSON.stringify(query)} → page ${page}, size ${pageSize}`, () => {
      expect(parsePageRequest(query)).toEqual({ page, pageSize, offset });
    });
  }

  const bad: Array<[Record<string, unknown>, string[]]> = [
    [{ page: "0" }, ["page"]],
    [{ page: "-1" }, ["page"]],
    [{ page: "1.5" }, ["page"]],
    [{ page: "abc" }, ["page"]],
    [{ page_size: "0" }, ["page_size"]],
    [{ page_size: "ten", page: "x" }, ["page", "page_size"]],
    [{ page: "99999999999999999999" }, ["page"]],
  ];
  for (const [query, fields] of bad) {
    test(`${JSON.stringify(query)} → 422 on ${fields.join(", ")}`, () => {
      let caught: unknown;
      try {
        parsePageRequest(query);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(AppError);
      const appError = caught as AppError;
      expect(appError.status).toBe(422);
      expect(Object.keys(appError.details.errors as object).sort()).toEqual(fields);
    });
  }
});

describe("pageInfo", () => {
  const cases: Array<[number, number, number]> = [
    [0, 20, 0],
    [1, 20, 1],
    [20, 20, 1],
    [21, 20, 2],
    [101, 10, 11],
  ];
  for (const [total, pageSize, totalPages] of cases) {
    test(`total ${total}, size ${pageSize} → ${totalPages} pages (ceil)`, () => {
      expect(pageInfo({ page: 1, pageSize, offset: 0 }, total).totalPages).toBe(totalPages);
    });
  }

  test("the generic envelope", () => {
    const info = pageInfo({ page: 2, pageSize: 5, offset: 5 }, 12);
    expect(genericPage(["a"], info)).toEqual({ data: ["a"], page: 2, page_size: 5, total: 12 });
  });
});
