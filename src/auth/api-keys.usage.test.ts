import { expect, test } from "bun:test";
import { type ApiKeyUse, createApiKeyUsage, type UsageBatch } from "./api-keys.usage.ts";

const at = (atMs: number, ip: string | null = null): ApiKeyUse => ({ atMs, ip, userAgent: null });

test("a failed write keeps its batch for the next flush, merged with later uses", async () => {
  const written: UsageBatch[] = [];
  let failing = true;
  const usage = createApiKeyUsage((batch) => {
    if (failing) throw new Error("database is locked");
    written.push(batch);
  });
  usage.record("a", at(1_000));
  usage.record("b", at(2_000));
  usage.answered("a", 1_000, 200);
  await expect(usage.flush()).rejects.toThrow("database is locked");
  expect(usage.unwritten("a")).toEqual(at(1_000));
  // A later use of "a" wins over the kept one; "b" keeps its kept time.
  usage.record("a", at(3_000, "10.0.0.1"));
  usage.answered("a", 3_000, 404);
  failing = false;
  expect(await usage.flush()).toBe(2);
  expect(written).toEqual([
    {
      uses: new Map([
        ["a", { at: "1970-01-01T00:00:03.000Z", ip: "10.0.0.1", userAgent: null }],
        ["b", { at: "1970-01-01T00:00:02.000Z", ip: null, userAgent: null }],
      ]),
      days: [{ apiKeyId: "a", date: "1970-01-01", requests: 2, errors: 1 }],
    },
  ]);
  expect(usage.unwritten("a")).toBeUndefined();
  expect(usage.unwrittenDays("a").size).toBe(0);
  expect(await usage.flush()).toBe(0);
});

test("an older use recorded after a newer one does not move the time back", () => {
  const usage = createApiKeyUsage(() => {});
  usage.record("a", at(5_000, "10.0.0.5"));
  usage.record("a", at(4_000, "10.0.0.4"));
  expect(usage.unwritten("a")).toEqual(at(5_000, "10.0.0.5"));
});

test("answers are counted per key and UTC day; only 4xx are errors", () => {
  const usage = createApiKeyUsage(() => {});
  const day = Date.UTC(2026, 0, 2);
  for (const status of [200, 201, 401, 403, 429, 500]) usage.answered("a", day + 5, status);
  usage.answered("a", day - 1, 200);
  expect(usage.unwrittenDays("a")).toEqual(
    new Map([
      ["2026-01-02", { requests: 6, errors: 3 }],
      ["2026-01-01", { requests: 1, errors: 0 }],
    ]),
  );
});
