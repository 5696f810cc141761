import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createEndpointsRepo } from "../endpoints/endpoints.repo.ts";
import { webhookReceived } from "../realtime/realtime.payload.model.ts";
import {
  insertCapturedRequest,
  insertEndpoint,
  insertOrganization,
} from "../test-utils/requests-fixtures.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import type { CapturedRequest } from "./capture.model.ts";
import { BODY_PREVIEW_LIMIT } from "./requests.model.ts";
import { createRequestsRepo } from "./requests.repo.ts";

let db: TestDb;
beforeEach(() => {
  db = createTestDb();
  insertOrganization(db, "org-a");
  insertOrganization(db, "org-b");
  insertEndpoint(db, { id: "ep-a", organizationId: "org-a" });
  insertEndpoint(db, { id: "ep-b", organizationId: "org-b" });
});
afterEach(() => db.destroy());

describe("listAfter", () => {
  test("returns requests after the given id, oldest first, bounded by limit", () => {
    for (const id of ["r1", "r2", "r3", "r4"]) {
      insertCapturedRequest(db, { id, endpointId: "ep-a" });
    }
    insertCapturedRequest(db, { id: "r5", endpointId: "ep-b" });
    const repo = createRequestsRepo(db);
    expect(repo.listAfter("ep-a", "r1", 10).map((r) => r.id)).toEqual(["r2", "r3", "r4"]);
    expect(repo.listAfter("ep-a", "r1", 2).map((r) => r.id)).toEqual(["r2", "r3"]);
    expect(repo.listAfter("ep-a", null, 10).map((r) => r.id)).toEqual(["r1", "r2", "r3", "r4"]);
    expect(repo.listAfter("ep-a", "r4", 10)).toEqual([]);
  });

  test("gives back the stored request byte-exact with parsed headers", () => {
    const body = new Uint8Array([0, 255, 128, 10]);
    const stored = insertCapturedRequest(db, {
      id: "r1",
      endpointId: "ep-a",
      body,
      rawHeaders: [
        ["X-A", "1"],
        ["x-a", "2"],
      ],
      headers: { "x-a": "1, 2" },
    });
    const [read] = createRequestsRepo(db).listAfter("ep-a", null, 1);
    expect(read).toEqual(stored);
    expect(Array.from(read?.body ?? [])).toEqual([0, 255, 128, 10]);
  });
});

describe("endpoints findInOrganization", () => {
  test("finds the organization's endpoint and hides another organization's", () => {
    const repo = createEndpointsRepo(db);
    expect(repo.findInOrganization("ep-a", "org-a")?.id).toBe("ep-a");
    expect(repo.findInOrganization("ep-a", "org-b")).toBeNull();
    expect(repo.findInOrganization("missing", "org-a")).toBeNull();
  });
});

describe("pages and removal", () => {
  test("pages newest first, counts, finds within the endpoint, empties", () => {
    for (const id of ["r1", "r2", "r3"]) insertCapturedRequest(db, { id, endpointId: "ep-a" });
    const repo = createRequestsRepo(db);
    expect(repo.listPage("ep-a", 0, 2).map((r) => r.id)).toEqual(["r3", "r2"]);
    expect(repo.listPage("ep-a", 2, 2).map((r) => r.id)).toEqual(["r1"]);
    expect(repo.count("ep-a")).toBe(3);
    expect(repo.find("ep-a", "r2")?.id).toBe("r2");
    expect(repo.find("ep-b", "r2")).toBeNull();
    // Emptying is a mark: every read stops seeing the requests at once; new ones show as usual.
    expect(createEndpointsRepo(db).clearRequests("ep-a", "0", "2026-01-02T00:00:00.000Z")).toBe(
      true,
    );
    expect(repo.count("ep-a")).toBe(0);
    expect(repo.listPage("ep-a", 0, 10)).toEqual([]);
    expect(repo.listAfter("ep-a", null, 10)).toEqual([]);
    expect(repo.find("ep-a", "r2")).toBeNull();
    insertCapturedRequest(db, { id: "r4", endpointId: "ep-a" });
    expect(repo.listPage("ep-a", 0, 10).map((r) => r.id)).toEqual(["r4"]);
    expect(repo.count("ep-a")).toBe(1);
  });
});

describe("lists read body previews in SQL", () => {
  test("listPage and listAfter load at most 64 KiB of each body, with the whole size; find loads it all", () => {
    const body = new Uint8Array(300_000).fill(97);
    insertCapturedRequest(db, { id: "r1", endpointId: "ep-a", body });
    insertCapturedRequest(db, { id: "r2", endpointId: "ep-a", body: "small" });
    insertCapturedRequest(db, { id: "r3", endpointId: "ep-a", body: new Uint8Array(0) });
    const repo = createRequestsRepo(db);
    for (const listed of [repo.listPage("ep-a", 0, 10), repo.listAfter("ep-a", null, 10)]) {
      const big = listed.find((r) => r.id === "r1");
      expect(big?.body.byteLength).toBe(BODY_PREVIEW_LIMIT);
      expect(big?.size).toBe(300_000);
      expect(new TextDecoder().decode(listed.find((r) => r.id === "r2")?.body)).toBe("small");
      expect(listed.find((r) => r.id === "r3")?.body).toEqual(new Uint8Array(0));
    }
    const whole = repo.find("ep-a", "r1");
    expect(whole?.body.byteLength).toBe(300_000);
    // The socket's catch-up cut of a preview row flags it with the whole size.
    const pushed = webhookReceived(repo.listAfter("ep-a", null, 1)[0] as CapturedRequest);
    expect([pushed.body.length, pushed.body_truncated, pushed.body_size]).toEqual([
      BODY_PREVIEW_LIMIT,
      true,
      300_000,
    ]);
  });
});
