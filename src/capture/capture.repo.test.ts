import { afterEach, expect, test } from "bun:test";
import { seedEndpoint, seedOrganization, storedRequests } from "../test-utils/capture-fixtures.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import type { CapturedRequest } from "./capture.model.ts";
import { createCaptureRepo } from "./capture.repo.ts";

let db: TestDb | null = null;
afterEach(() => {
  db?.destroy();
  db = null;
});

function request(n: number, endpointId: string): CapturedRequest {
  const body = Uint8Array.from({ length: 40 + n }, (_, i) => (i * 13 + n) % 256);
  return {
    id: `0190aaaa-0000-7000-8000-${String(n).padStart(12, "0")}`,
    endpointId,
    method: n % 2 ? "PUT" : "POST",
    path: `/p/${n}`,
    queryString: `n=${n}`,
    headers: { "x-n": String(n), "content-type": "application/octet-stream" },
    rawHeaders: [
      ["x-n", String(n)],
      ["content-type", "application/octet-stream"],
    ],
    body,
    contentType: n % 3 ? "application/octet-stream" : null,
    size: body.byteLength,
    remoteIp: n % 5 ? "10.0.0.1" : null,
    status: 200 + (n % 3),
    createdAt: `2026-01-01T00:00:${String(n % 60).padStart(2, "0")}.000Z`,
  };
}

test("a batch of any size is stored whole and exact, skipping only the rows of a vanished endpoint", () => {
  db = createTestDb();
  seedOrganization(db.sqlite, "org");
  seedEndpoint(db.sqlite, { id: "ep", slug: "hook", organizationId: "org" });
  const repo = createCaptureRepo(db);
  // 37 rows: two 16-row statements and five single ones; every 7th row is for a deleted endpoint.
  const batch = Array.from({ length: 37 }, (_, n) => request(n, n % 7 === 3 ? "gone" : "ep"));
  const stored = db.tx(() => repo.insertRows(batch));
  expect(stored).toEqual(batch.map((r) => r.endpointId === "ep"));
  const rows = storedRequests(db.sqlite, "ep");
  const expected = batch.filter((r) => r.endpointId === "ep");
  expect(rows.map((row) => row.id)).toEqual(expected.map((r) => r.id));
  rows.forEach((row, i) => {
    const r = expected[i] as CapturedRequest;
    expect(Buffer.from(row.body).equals(Buffer.from(r.body))).toBe(true);
    expect(row).toMatchObject({
      method: r.method,
      path: r.path,
      query_string: r.queryString,
      content_type: r.contentType,
      remote_ip: r.remoteIp,
      size: r.size,
      status: r.status,
      created_at: r.createdAt,
    });
    expect(JSON.parse(row.raw_headers)).toEqual(r.rawHeaders);
  });
});

test("a batch that fails stores nothing at all", () => {
  db = createTestDb();
  seedOrganization(db.sqlite, "org");
  seedEndpoint(db.sqlite, { id: "ep", slug: "hook", organizationId: "org" });
  const repo = createCaptureRepo(db);
  const batch = Array.from({ length: 20 }, (_, n) => request(n, "ep"));
  // The same id twice: the primary key fails the 20th row, after 19 were inserted.
  batch[19] = { ...(batch[19] as CapturedRequest), id: (batch[0] as CapturedRequest).id };
  const tx = db.tx;
  expect(() => tx(() => repo.insertRows(batch))).toThrow();
  expect(storedRequests(db.sqlite, "ep")).toHaveLength(0);
});
