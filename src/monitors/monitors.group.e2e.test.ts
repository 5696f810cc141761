import { afterAll, beforeAll, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { createMonitorAs, MONITORS_PATH } from "../test-utils/monitors.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

let server: TestServer;
let owner: TestAccount;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server);
});
afterAll(() => server.stop());

test("any monitor may carry a group: set, kept on update, cleared with null, 422 when not a name", async () => {
  const monitor = await createMonitorAs(server, owner, {
    name: "router",
    type: "ping",
    hostname: "192.168.1.1",
    group: " Network ",
    paused: true,
  });
  expect(monitor.group).toBe("Network");
  const renamed = await callAs(server, owner, "PATCH", `${MONITORS_PATH}/${monitor.id}`, {
    name: "gateway",
  });
  expect(renamed.body.data.group).toBe("Network");
  const cleared = await callAs(server, owner, "PATCH", `${MONITORS_PATH}/${monitor.id}`, {
    group: null,
  });
  expect(cleared.body.data).not.toHaveProperty("group");
  const bad = await callAs(server, owner, "PATCH", `${MONITORS_PATH}/${monitor.id}`, { group: 7 });
  expect([bad.status, Object.keys(bad.body.errors)]).toEqual([422, ["group"]]);
});
