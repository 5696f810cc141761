import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { createMonitorAs } from "../test-utils/monitors.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import type { DeliveryHealthOf } from "./status-pages.ports.ts";

let server: TestServer;
let owner: TestAccount;
let member: TestAccount;
let stranger: TestAccount;
const PATH = "/api/v1/status-pages";

// The routing room's health of its bridges, as an in-test port: one bridge per organization.
const bridges = new Map<string, string>();
const deliveryHealth: DeliveryHealthOf = async (organizationId, component) => {
  if (!("bridge_id" in component)) return null;
  if (bridges.get(component.bridge_id) !== organizationId) return null;
  return { name: "Orders", state: "up", days: [] };
};

beforeAll(async () => {
  server = await startTestServer({ ports: { statusPages: { deliveryHealth } } });
  owner = await signUp(server, { plan: "team" });
  member = await owner.addMember("member");
  stranger = await signUp(server, { plan: "team" });
  bridges.set("bridge-own", owner.organizationId);
  bridges.set("bridge-other", stranger.organizationId);
});
afterAll(() => server.stop());

let counter = 0;
const slug = () => `page-${++counter}-${Date.now().toString(36)}`;
const push = (account: TestAccount, name = "API") =>
  createMonitorAs(server, account, { name, type: "push", interval_seconds: 60 });
const create = (body: Record<string, unknown>, account = owner) =>
  callAs(server, account, "POST", PATH, { status_page: body });

describe("status pages API", () => {
  test("create 201 {data} with defaults and public_url; get, list, PUT, DELETE follow", async () => {
    const s = slug();
    const created = await create({ name: "Acme", slug: s });
    expect(created.status).toBe(201);
    const page = created.body.data;
    expect(page).toMatchObject({
      name: "Acme",
      slug: s,
      description: null,
      logo_url: null,
      primary_color: "#a855f7",
      show_service_branding: true,
      custom_domain: null,
      groups: [],
      monitors: [],
      public_url: `${server.url}/status/${s}`,
    });
    expect(typeof page.inserted_at).toBe("string");

    const got = await callAs(server, member, "GET", `${PATH}/${page.id}`);
    expect(got.status).toBe(200);
    expect(got.body.data.id).toBe(page.id);
    const list = await callAs(server, member, "GET", PATH);
    expect(list.body.data.map((p: { id: string }) => p.id)).toContain(page.id);

    const put = await callAs(server, owner, "PUT", `${PATH}/${page.id}`, {
      status_page: { primary_color: "#0f766e", groups: [{ name: "Core", order: 1 }] },
    });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ name: "Acme", primary_color: "#0f766e" });
    expect(put.body.data.groups).toEqual([{ name: "Core", order: 1 }]);

    expect((await callAs(server, owner, "DELETE", `${PATH}/${page.id}`)).status).toBe(204);
    expect((await callAs(server, owner, "GET", `${PATH}/${page.id}`)).status).toBe(404);
  });

  test.each([
    [{ slug: "abc" }, "name"],
    [{ name: "x".repeat(256), slug: "abcd" }, "name"],
    [{ name: "A", slug: "ab" }, "slug"],
    [{ name: "A", slug: "Has_Upper" }, "slug"],
    [{ name: "A", slug: "x".repeat(51) }, "slug"],
    [{ name: "A", slug: "okay", logo_url: "javascript:alert(1)" }, "logo_url"],
    [{ name: "A", slug: "okay", primary_color: "red" }, "primary_color"],
    [{ name: "A", slug: "okay", custom_domain: "http://x.example" }, "custom_domain"],
    [{ name: "A", slug: "okay", custom_domain: "127.0.0.1" }, "custom_domain"],
    [{ name: "A", slug: "okay", show_service_branding: "no" }, "show_service_branding"],
  ])("%j → 422 errors.%s", async (body, field) => {
    const answer = await create(body);
    expect(answer.status).toBe(422);
    expect(answer.body.error).toBe("validation_failed");
    expect(Object.keys(answer.body.errors)).toContain(field);
  });

  test("a taken slug → 409 slug_taken; a taken custom domain → 409", async () => {
    const s = slug();
    expect((await create({ name: "A", slug: s, custom_domain: `${s}.example.com` })).status).toBe(
      201,
    );
    const again = await create({ name: "B", slug: s }, stranger);
    expect(again.status).toBe(409);
    expect(again.body.error).toBe("slug_taken");
    const domain = await create({ name: "B", slug: slug(), custom_domain: `${s}.example.com` });
    expect(domain.status).toBe(409);
  });

  test("members read but do not write; another organization's page is 404", async () => {
    const page = (await create({ name: "A", slug: slug() })).body.data;
    expect((await create({ name: "M", slug: slug() }, member)).status).toBe(403);
    const put = await callAs(server, member, "PUT", `${PATH}/${page.id}`, {
      status_page: { name: "M" },
    });
    expect(put.status).toBe(403);
    expect((await callAs(server, member, "DELETE", `${PATH}/${page.id}`)).status).toBe(403);
    for (const [method, path] of [
      ["GET", `${PATH}/${page.id}`],
      ["PUT", `${PATH}/${page.id}`],
      ["DELETE", `${PATH}/${page.id}`],
    ] as const) {
      const answer = await callAs(server, stranger, method, path, { status_page: { name: "X" } });
      expect(answer.status).toBe(404);
    }
    const list = await callAs(server, stranger, "GET", PATH);
    expect(list.body.data.map((p: { id: string }) => p.id)).not.toContain(page.id);
  });

  test("attach a monitor 201, again updates it, the page lists it with its status and group; detach 204", async () => {
    const page = (await create({ name: "A", slug: slug(), groups: [{ name: "Core", order: 0 }] }))
      .body.data;
    const monitor = await push(owner);
    const url = `${PATH}/${page.id}/monitors/${monitor.id}`;
    const attached = await callAs(server, owner, "POST", url, { display_name: "Public API" });
    expect(attached.status).toBe(201);
    expect(attached.body.data).toMatchObject({
      status_page_id: page.id,
      monitor_id: monitor.id,
      display_name: "Public API",
      display_order: 0,
    });
    const again = await callAs(server, owner, "POST", url, { display_order: 3, group: "Core" });
    expect(again.status).toBe(201);
    const got = (await callAs(server, member, "GET", `${PATH}/${page.id}`)).body.data;
    expect(got.monitors).toEqual([
      {
        monitor_id: monitor.id,
        display_name: null,
        display_order: 3,
        group: "Core",
        status: "pending",
      },
    ]);
    const badGroup = await callAs(server, owner, "POST", url, { group: "Nope" });
    expect(badGroup.status).toBe(422);
    expect(badGroup.body.errors.group).toBeDefined();
    expect((await callAs(server, member, "POST", url, {})).status).toBe(403);
    expect((await callAs(server, owner, "DELETE", url)).status).toBe(204);
    expect((await callAs(server, owner, "DELETE", url)).status).toBe(404);
    expect((await callAs(server, owner, "GET", `${PATH}/${page.id}`)).body.data.monitors).toEqual(
      [],
    );
  });

  test("another organization's monitor is 404 and never attached", async () => {
    const page = (await create({ name: "A", slug: slug() })).body.data;
    const theirs = await push(stranger);
    const answer = await callAs(
      server,
      owner,
      "POST",
      `${PATH}/${page.id}/monitors/${theirs.id}`,
      {},
    );
    expect(answer.status).toBe(404);
    expect((await callAs(server, owner, "GET", `${PATH}/${page.id}`)).body.data.monitors).toEqual(
      [],
    );
    const mine = await push(owner);
    const onTheirPage = await callAs(
      server,
      stranger,
      "POST",
      `${PATH}/${page.id}/monitors/${mine.id}`,
      {},
    );
    expect(onTheirPage.status).toBe(404);
  });

  test("components: an own bridge 201, another organization's 404, exactly one target, delete 204", async () => {
    const page = (await create({ name: "A", slug: slug() })).body.data;
    const base = `${PATH}/${page.id}/components`;
    const added = await callAs(server, owner, "POST", base, {
      bridge_id: "bridge-own",
      display_order: 2,
    });
    expect(added.status).toBe(201);
    expect(added.body.data).toMatchObject({
      bridge_id: "bridge-own",
      display_order: 2,
      display_name: null,
    });
    expect((await callAs(server, owner, "POST", base, { bridge_id: "bridge-other" })).status).toBe(
      404,
    );
    const both = await callAs(server, owner, "POST", base, { bridge_id: "a", destination_id: "b" });
    expect(both.status).toBe(422);
    const got = (await callAs(server, owner, "GET", `${PATH}/${page.id}`)).body.data;
    expect(got.components.map((c: { id: string }) => c.id)).toEqual([added.body.data.id]);
    expect((await callAs(server, owner, "DELETE", `${base}/${added.body.data.id}`)).status).toBe(
      204,
    );
    expect((await callAs(server, owner, "DELETE", `${base}/${added.body.data.id}`)).status).toBe(
      404,
    );
  });

  test("a custom domain that is the instance's own host → 422 (it would shadow the app)", async () => {
    const answer = await apiCall(server, "POST", PATH, {
      headers: { ...owner.headers, host: "weir.example.com" },
      body: { status_page: { name: "A", slug: slug(), custom_domain: "Weir.example.com" } },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.errors.custom_domain).toBeDefined();
  });
});
