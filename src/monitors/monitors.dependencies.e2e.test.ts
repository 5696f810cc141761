import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { createMonitorAs, MONITORS_PATH } from "../test-utils/monitors.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

// Dependencies (decisions.md §15): while a parent is down its children's down alerts are held;
// when it recovers, the children still down alert then, once.
let server: TestServer;
let owner: TestAccount;
const sink = startHttpSink();
/** Paths of the targets that answer 503; every other target answers 200. */
const failing = new Set<string>();

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, { plan: "team" });
  sink.answer((r) =>
    r.path === "/alerts" ? { status: 204 } : { status: failing.has(r.path) ? 503 : 200 },
  );
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

interface AlertDocument {
  type: string;
  data: { monitor: { id: string } };
}
const alerts = () =>
  sink.requests
    .filter((r) => r.path === "/alerts")
    .map((r) => JSON.parse(new TextDecoder().decode(r.body)) as AlertDocument);

async function rule(type: string) {
  const answer = await callAs(server, owner, "POST", "/api/v1/alert-rules", {
    name: `on ${type}`,
    condition: { type },
    channel: { type: "webhook", url: `${sink.url}/alerts` },
  });
  expect(answer.status).toBe(201);
  return answer.body.data.id as string;
}

/** The rule's firings: written in the check's transaction, so final once the check answered. */
async function firings(ruleId: string) {
  const answer = await callAs(
    server,
    owner,
    "GET",
    `/api/v1/alert-rules/${ruleId}/alerts?page_size=100`,
  );
  return answer.body.data as unknown[];
}

const check = (id: string) => callAs(server, owner, "POST", `${MONITORS_PATH}/${id}/check`);

const monitorOn = (name: string, parentId: string | null = null) =>
  createMonitorAs(server, owner, {
    name,
    type: "http",
    url: `${sink.url}/${name}`,
    paused: true,
    ...(parentId ? { parent_id: parentId } : {}),
  });

describe("monitor dependencies", () => {
  test("a parent and 20 children failing send ONE alert; after the parent recovers, the 2 children still down alert once", async () => {
    const downRule = await rule("monitor_down");
    const upRule = await rule("monitor_up");
    const parent = await monitorOn("router");
    expect(parent.parent_id).toBeNull();
    const children = [];
    for (let i = 0; i < 20; i++) children.push(await monitorOn(`service-${i}`, parent.id));
    expect(children[0]?.parent_id).toBe(parent.id);
    for (const name of ["router", ...children.map((_, i) => `service-${i}`)])
      failing.add(`/${name}`);

    await check(parent.id);
    for (const child of children) expect((await check(child.id)).body.data.status).toBe("down");
    expect(await firings(downRule)).toHaveLength(1);
    await pollUntil(() => alerts().length === 1, { what: "the parent's alert" });
    expect(alerts()[0]?.data.monitor.id).toBe(parent.id);

    const events = await callAs(server, owner, "GET", `${MONITORS_PATH}/${children[0]?.id}/events`);
    expect(events.body.data[0]).toMatchObject({ to: "down", held_by_parent_id: parent.id });

    // 18 children come back while the parent is still down: their held alerts are dropped.
    const [stillDownA, stillDownB] = children.slice(18);
    for (const [i, child] of children.entries()) {
      if (i < 18) {
        failing.delete(`/service-${i}`);
        await check(child.id);
      }
    }
    expect(await firings(upRule)).toHaveLength(0);

    failing.delete("/router");
    await check(parent.id);
    const released = await firings(downRule);
    expect(released).toHaveLength(3);
    const arrived = await pollUntil(() => alerts().length === 4 && alerts(), {
      what: "the parent's recovery and the two released alerts",
    });
    const downs = arrived.filter((a) => a.type === "monitor.down").map((a) => a.data.monitor.id);
    expect(downs.sort()).toEqual(
      [parent.id, String(stillDownA?.id), String(stillDownB?.id)].sort(),
    );
    expect(arrived.filter((a) => a.type === "monitor.up").map((a) => a.data.monitor.id)).toEqual([
      parent.id,
    ]);

    // Still down at the next checks: nothing more (once).
    await check(stillDownA?.id as string);
    await check(parent.id);
    expect(await firings(downRule)).toHaveLength(3);
  });

  test("parent_id must name another monitor of the organization and make no cycle (422 naming parent_id)", async () => {
    const a = await monitorOn("a");
    const b = await monitorOn("b", a.id);
    const c = await monitorOn("c", b.id);
    const put = (id: string, parentId: string) =>
      callAs(server, owner, "PATCH", `${MONITORS_PATH}/${id}`, { parent_id: parentId });

    const itself = await put(a.id, a.id);
    expect(itself.status).toBe(422);
    expect(itself.body.errors.parent_id[0]).toContain("itself");
    const cycle = await put(a.id, c.id);
    expect(cycle.status).toBe(422);
    expect(cycle.body.errors.parent_id[0]).toContain("cycle");

    const stranger = await signUp(server, { plan: "team" });
    const theirs = await createMonitorAs(server, stranger, {
      name: "theirs",
      type: "http",
      url: `${sink.url}/theirs`,
      paused: true,
    });
    const foreign = await put(a.id, theirs.id);
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors.parent_id).toBeDefined();
    const created = await callAs(server, owner, "POST", MONITORS_PATH, {
      name: "d",
      type: "http",
      url: `${sink.url}/d`,
      parent_id: theirs.id,
    });
    expect(created.status).toBe(422);
    expect(created.body.errors.parent_id).toBeDefined();

    const cleared = await callAs(server, owner, "PATCH", `${MONITORS_PATH}/${b.id}`, {
      parent_id: null,
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data.parent_id).toBeNull();
    // A deleted parent leaves its children without one.
    expect((await callAs(server, owner, "DELETE", `${MONITORS_PATH}/${b.id}`)).status).toBe(204);
    const orphan = await callAs(server, owner, "GET", `${MONITORS_PATH}/${c.id}`);
    expect(orphan.body.data.parent_id).toBeNull();
  });
});
