import { describe, expect, test } from "bun:test";
import { readQuery, writeQuery } from "./router.ts";

describe("URL state", () => {
  const defaults = { status: "", source_id: "", page: "1" };

  test("reads known keys over the defaults and ignores others", () => {
    expect(readQuery("?status=failed&other=x", defaults)).toEqual({
      status: "failed",
      source_id: "",
      page: "1",
    });
  });

  test("leaves defaults and empty values out of the URL", () => {
    expect(writeQuery({ status: "", source_id: "s1", page: "1" }, defaults)).toBe("?source_id=s1");
    expect(writeQuery(defaults, defaults)).toBe("");
  });
});
