import { expect, test } from "bun:test";
import { createApiKeyUsage } from "./api-keys.usage.ts";

test("a failed write keeps its batch for the next flush, merged with later uses", () => {
  const written: Map<string, string>[] = [];
  let failing = true;
  const usage = createApiKeyUsage((uses) => {
    if (failing) throw new Error("database is locked");
    written.push(uses);
  });
  usage.record("a", 1_000);
  usage.record("b", 2_000);
  expect(() => usage.flush()).toThrow("database is locked");
  expect(usage.unwritten("a")).toBe(1_000);
  // A later use of "a" wins over the kept one; "b" keeps its kept time.
  usage.record("a", 3_000);
  failing = false;
  expect(usage.flush()).toBe(2);
  expect(written).toEqual([
    new Map([
      ["a", "1970-01-01T00:00:03.000Z"],
      ["b", "1970-01-01T00:00:02.000Z"],
    ]),
  ]);
  expect(usage.unwritten("a")).toBeUndefined();
  expect(usage.flush()).toBe(0);
});

test("an older use recorded after a newer one does not move the time back", () => {
  const usage = createApiKeyUsage(() => {});
  usage.record("a", 5_000);
  usage.record("a", 4_000);
  expect(usage.unwritten("a")).toBe(5_000);
});
