import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import type { AuthPorts } from "../auth/auth.room.ts";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { createFakeClock, type FakeClock } from "../test-utils/fake-clock.ts";
import { createManualScheduler } from "../test-utils/manual-scheduler.ts";
import { createMonitorAs } from "../test-utils/monitors.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { createMaintenanceRoom, MAINTENANCE_REFRESH_JOB } from "./maintenance.room.ts";
import { MAX_WINDOWS } from "./maintenance.service.ts";

const PATH = "/api/v1/maintenance-windows";
const HOUR = 3_600_000;
let server: TestServer;
let clock: FakeClock;
let owner: TestAccount;
let monitorId: string;

beforeAll(async () => {
  // 2026-01-01T00:00:00Z, a Thursday.
  clock = createFakeClock();
  server = await startTestServer({ clock, scheduler: createManualScheduler() });
  const account = await signUp(server);
  owner = { ...account, headers: { authorization: `Bearer ${await account.createApiKey()}` } };
  const monitor = await createMonitorAs(server, owner, {
    name: "api",
    type: "http",
    url: "http://127.0.0.1:9/",
    paused: true,
  });
  monitorId = monitor.id;
});
afterAll(() => server.stop());

const oneOff = (overrides: Record<string, unknown> = {}) => ({
  title: "Database upgrade",
  description: "Postgres 17",
  monitor_ids: [monitorId],
  starts_at: "2026-01-01T02:00:00Z",
  ends_at: "2026-01-01T04:00:00Z",
  ...overrides,
});

describe("maintenance windows", () => {
  test("a one-off window: create, read, list newest first, change, delete", async () => {
    const created = await callAs(server, owner, "POST", PATH, oneOff());
    expect(created.status).toBe(201);
    const window = created.body.data;
    expect(window).toMatchObject({
      title: "Database upgrade",
      description: "Postgres 17",
      monitor_ids: [monitorId],
      starts_at: "2026-01-01T02:00:00.000Z",
      ends_at: "2026-01-01T04:00:00.000Z",
      cron: null,
      active: false,
      next_occurrences: [
        { starts_at: "2026-01-01T02:00:00.000Z", ends_at: "2026-01-01T04:00:00.000Z" },
      ],
    });
    const second = (await callAs(server, owner, "POST", PATH, oneOff({ title: "later" }))).body;
    const list = await callAs(server, owner, "GET", PATH);
    expect(list.body.data.map((w: { id: string }) => w.id).slice(0, 2)).toEqual([
      second.data.id,
      window.id,
    ]);

    clock.advance(3 * HOUR);
    const during = await callAs(server, owner, "GET", `${PATH}/${window.id}`);
    expect(during.body.data.active).toBe(true);
    const patched = await callAs(server, owner, "PATCH", `${PATH}/${window.id}`, {
      ends_at: "2026-01-01T03:30:00Z",
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ title: "Database upgrade", active: true });
    clock.advance(HOUR);
    const over = (await callAs(server, owner, "GET", `${PATH}/${window.id}`)).body.data;
    expect(over).toMatchObject({ active: false, next_occurrences: [] });

    expect((await callAs(server, owner, "DELETE", `${PATH}/${window.id}`)).status).toBe(204);
    expect((await callAs(server, owner, "GET", `${PATH}/${window.id}`)).status).toBe(404);
    await callAs(server, owner, "DELETE", `${PATH}/${second.data.id}`);
    clock.set(Date.UTC(2026, 0, 1));
  });

  test("a recurring window's occurrences follow its cron in its own time zone", async () => {
    // Sundays 02:00 in Berlin: 01:00 UTC in winter, 00:00 UTC in summer.
    const created = await callAs(server, owner, "POST", PATH, {
      title: "Weekly patching",
      monitor_ids: [monitorId],
      cron: "0 2 * * 0",
      duration_minutes: 90,
      timezone: "Europe/Berlin",
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      starts_at: null,
      ends_at: null,
      cron: "0 2 * * 0",
      duration_minutes: 90,
      timezone: "Europe/Berlin",
      active: false,
      next_occurrences: [
        { starts_at: "2026-01-04T01:00:00.000Z", ends_at: "2026-01-04T02:30:00.000Z" },
        { starts_at: "2026-01-11T01:00:00.000Z", ends_at: "2026-01-11T02:30:00.000Z" },
        { starts_at: "2026-01-18T01:00:00.000Z", ends_at: "2026-01-18T02:30:00.000Z" },
      ],
    });
    clock.set(Date.UTC(2026, 6, 5, 1)); // Sunday 5 July, 03:00 in Berlin (summer time)
    const summer = (await callAs(server, owner, "GET", `${PATH}/${created.body.data.id}`)).body;
    expect(summer.data.active).toBe(true);
    expect(summer.data.next_occurrences[0]).toEqual({
      starts_at: "2026-07-05T00:00:00.000Z",
      ends_at: "2026-07-05T01:30:00.000Z",
    });
    await callAs(server, owner, "DELETE", `${PATH}/${created.body.data.id}`);
    clock.set(Date.UTC(2026, 0, 1));
  });

  test("bad fields are a 422 naming each field", async () => {
    const failures = async (body: Record<string, unknown>) => {
      const answer = await callAs(server, owner, "POST", PATH, body);
      expect(answer.status).toBe(422);
      expect(answer.body.error).toBe("validation_failed");
      return Object.keys(answer.body.errors).sort();
    };
    expect(await failures(oneOff({ ends_at: "2026-01-01T01:00:00Z" }))).toEqual(["ends_at"]);
    expect(await failures(oneOff({ starts_at: "soon", title: "" }))).toEqual([
      "starts_at",
      "title",
    ]);
    expect(await failures(oneOff({ monitor_ids: [] }))).toEqual(["monitor_ids"]);
    expect(await failures(oneOff({ monitor_ids: ["no-such-monitor"] }))).toEqual(["monitor_ids"]);
    expect(
      await failures({
        title: "t",
        monitor_ids: [monitorId],
        cron: "61 * * * *",
        duration_minutes: 10_081,
        timezone: "Mars/Olympus",
      }),
    ).toEqual(["cron", "duration_minutes", "timezone"]);
    expect(
      await failures({
        title: "t",
        monitor_ids: [monitorId],
        cron: "0 2 * * 0",
        duration_minutes: 0,
      }),
    ).toEqual(["duration_minutes"]);
    expect(
      await failures({
        title: "t",
        monitor_ids: [monitorId],
        cron: "0 0 2 * * 0",
        duration_minutes: 5,
      }),
    ).toEqual(["cron"]);
  });

  test("members read but may not write; another organization's windows and monitors are unknown", async () => {
    const window = (await callAs(server, owner, "POST", PATH, oneOff())).body.data;
    const member = await owner.addMember("member");
    expect((await callAs(server, member, "GET", `${PATH}/${window.id}`)).status).toBe(200);
    expect((await callAs(server, member, "POST", PATH, oneOff())).status).toBe(403);
    expect(
      (await callAs(server, member, "PATCH", `${PATH}/${window.id}`, { title: "x" })).status,
    ).toBe(403);
    expect((await callAs(server, member, "DELETE", `${PATH}/${window.id}`)).status).toBe(403);

    const stranger = await signUp(server);
    expect((await callAs(server, stranger, "GET", `${PATH}/${window.id}`)).status).toBe(404);
    expect((await callAs(server, stranger, "DELETE", `${PATH}/${window.id}`)).status).toBe(404);
    expect((await callAs(server, stranger, "GET", PATH)).body.data).toEqual([]);
    // Naming the owner's monitor from another organization reads as an unknown monitor.
    const borrowed = await callAs(server, stranger, "POST", PATH, oneOff());
    expect(borrowed.status).toBe(422);
    expect(Object.keys(borrowed.body.errors)).toEqual(["monitor_ids"]);
    await callAs(server, owner, "DELETE", `${PATH}/${window.id}`);
  });

  test("an organization keeps at most MAX_WINDOWS windows: every check and status page walks them", async () => {
    const account = await signUp(server);
    const admin = {
      ...account,
      headers: { authorization: `Bearer ${await account.createApiKey()}` },
    };
    const monitor = await createMonitorAs(server, admin, {
      name: "capped",
      type: "http",
      url: "http://127.0.0.1:9/",
      paused: true,
    });
    const body = oneOff({ monitor_ids: [monitor.id] });
    for (let i = 0; i < MAX_WINDOWS; i++) {
      expect((await callAs(server, admin, "POST", PATH, body)).status).toBe(201);
    }
    const refused = await callAs(server, admin, "POST", PATH, body);
    expect([refused.status, refused.body.error]).toEqual([403, "maintenance_limit_reached"]);
    const listed = await callAs(server, admin, "GET", PATH);
    expect(listed.body.data.length).toBe(MAX_WINDOWS);
    // Another organization is not held back by this one's windows.
    const elsewhere = await callAs(server, owner, "POST", PATH, oneOff());
    expect(elsewhere.status).toBe(201);
    await callAs(server, owner, "DELETE", `${PATH}/${elsewhere.body.data.id}`);
  });

  test("a deleted monitor drops out of its windows without blocking an edit", async () => {
    const doomed = await createMonitorAs(server, owner, {
      name: "doomed",
      type: "http",
      url: "http://127.0.0.1:9/",
      paused: true,
    });
    const window = (
      await callAs(server, owner, "POST", PATH, oneOff({ monitor_ids: [monitorId, doomed.id] }))
    ).body.data;
    expect(window.monitor_ids).toEqual([monitorId, doomed.id]);
    await callAs(server, owner, "DELETE", `/api/v1/uptime-monitors/${doomed.id}`);
    const edited = await callAs(server, owner, "PATCH", `${PATH}/${window.id}`, { title: "Moved" });
    expect(edited.status).toBe(200);
    expect(edited.body.data).toMatchObject({ title: "Moved", monitor_ids: [monitorId] });
    await callAs(server, owner, "DELETE", `${PATH}/${window.id}`);
  });

  test("maintenanceFor: active, upcoming within the horizon, and recent occurrences of the page's monitors", async () => {
    const other = await createMonitorAs(server, owner, {
      name: "other",
      type: "http",
      url: "http://127.0.0.1:9/",
      paused: true,
    });
    const post = async (body: Record<string, unknown>) =>
      (await callAs(server, owner, "POST", PATH, body)).body.data;
    const now = await post(oneOff({ title: "now", starts_at: "2025-12-31T23:00:00Z" }));
    const soon = await post(
      oneOff({
        title: "soon",
        monitor_ids: [monitorId, other.id],
        starts_at: "2026-01-03T00:00:00Z",
        ends_at: "2026-01-03T01:00:00Z",
      }),
    );
    await post(
      oneOff({ title: "far", starts_at: "2026-03-01T00:00:00Z", ends_at: "2026-03-01T01:00:00Z" }),
    );
    await post(
      oneOff({ title: "elsewhere", monitor_ids: [other.id], starts_at: "2025-12-31T23:00:00Z" }),
    );
    const daily = await post({
      title: "nightly",
      monitor_ids: [monitorId],
      cron: "30 22 * * *",
      duration_minutes: 30,
      timezone: "UTC",
    });
    const room = createMaintenanceRoom(server.deps, {
      guard: (() => new Elysia()) as unknown as AuthPorts["guard"],
      monitorExists: async () => true,
    });
    // On PostgreSQL a room reads a copy of the windows, loaded as the node starts.
    await room.jobs.find((job) => job.name === MAINTENANCE_REFRESH_JOB)?.run();
    const { ports } = room;
    const found = ports.maintenanceFor(owner.organizationId, [monitorId], new Date(clock.now()), 7);
    expect(found.active.map((o) => o.window_id)).toEqual([now.id]);
    expect(found.active[0]).toEqual({
      window_id: now.id,
      title: "now",
      description: "Postgres 17",
      monitor_ids: [monitorId],
      starts_at: "2025-12-31T23:00:00.000Z",
      ends_at: "2026-01-01T04:00:00.000Z",
    });
    expect(found.upcoming.map((o) => [o.title, o.starts_at])).toEqual([
      ["nightly", "2026-01-01T22:30:00.000Z"],
      ["nightly", "2026-01-02T22:30:00.000Z"],
      ["soon", "2026-01-03T00:00:00.000Z"],
      ["nightly", "2026-01-03T22:30:00.000Z"],
      ["nightly", "2026-01-04T22:30:00.000Z"],
      ["nightly", "2026-01-05T22:30:00.000Z"],
      ["nightly", "2026-01-06T22:30:00.000Z"],
      ["nightly", "2026-01-07T22:30:00.000Z"],
    ]);
    // Only the page's own monitors are named.
    expect(found.upcoming.find((o) => o.window_id === soon.id)?.monitor_ids).toEqual([monitorId]);
    expect(found.recent.map((o) => o.ends_at).slice(0, 2)).toEqual([
      "2025-12-31T23:00:00.000Z",
      "2025-12-30T23:00:00.000Z",
    ]);
    expect(found.recent.every((o) => o.window_id === daily.id)).toBe(true);
    expect(ports.maintenanceFor("another-org", [monitorId], new Date(clock.now()), 7)).toEqual({
      active: [],
      upcoming: [],
      recent: [],
    });
    expect(ports.inMaintenance(monitorId, new Date(clock.now()))).toBe(true);
    expect(ports.inMaintenance(monitorId, new Date(Date.UTC(2026, 0, 1, 5)))).toBe(false);
    expect(ports.inMaintenance(monitorId, new Date(Date.UTC(2026, 0, 1, 22, 45)))).toBe(true);
    expect(ports.inMaintenance(monitorId, new Date(Date.UTC(2026, 0, 1, 23)))).toBe(false);
  });
});
