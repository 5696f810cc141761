import { afterAll, beforeAll, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { createEndpointWithActions } from "../test-utils/endpoints.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { storedRows } from "../test-utils/stored-rows.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

let server: TestServer;
let owner: TestAccount;

beforeAll(async () => {
  server = await startTestServer({ config: { capture_rate_limit: "off" } });
  owner = await signUp(server, { plan: "team" });
});
afterAll(async () => {
  await server.stop();
});

const CAPTURES = 1000;
const SENDERS = 50;

test("a counter stored by 1,000 concurrent captures' runs ends at 1,000, each run recorded once", async () => {
  const endpoint = await createEndpointWithActions(server, owner, [
    {
      type: "run_script",
      config: { code: "variables.count = (Number(variables.count) || 0) + 1;" },
    },
    { type: "store_variable", config: { name: "count", value: "$count$" } },
  ]);
  let next = 0;
  const sender = async () => {
    while (next < CAPTURES) {
      next += 1;
      const response = await fetch(`${server.url}/w/${endpoint.slug}`, {
        method: "POST",
        body: "{}",
      });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: SENDERS }, sender));

  const owed = async () =>
    (await storedRows(server, "action_runs_due", "endpoint_id", endpoint.id)).length;
  await pollUntil(async () => (await owed()) === 0, {
    what: "every owed run recorded",
    timeoutMs: 60_000,
  });
  const variables = await storedRows(server, "endpoint_variables", "endpoint_id", endpoint.id);
  const counter = variables.find((row) => row.name === "count");
  expect(counter?.value).toBe(String(CAPTURES));
  const runs = await storedRows(server, "action_runs", "endpoint_id", endpoint.id);
  const requests = new Set(runs.map((run) => run.request_id));
  expect({ runs: runs.length, requests: requests.size }).toEqual({
    runs: CAPTURES,
    requests: CAPTURES,
  });
}, 90_000);
