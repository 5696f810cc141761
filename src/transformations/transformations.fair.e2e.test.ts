import { afterAll, beforeAll, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

let server: TestServer;
let noisy: TestAccount;
let quiet: TestAccount;

beforeAll(async () => {
  // One worker and a short CPU limit: forty spinning runs are a backlog of seconds.
  server = await startTestServer({
    config: { sandbox_workers: 1, sandbox_timeout_ms: 100, sandbox_queue_limit: 64 },
  });
  noisy = await signUp(server, { plan: "team" });
  quiet = await signUp(server, { plan: "team" });
});
afterAll(() => server.stop());

const SAMPLE = { method: "POST", path: "/", query: {}, headers: {}, body: "{}" };

const testRun = (account: TestAccount, code: string) =>
  callAs(server, account, "POST", "/api/v1/transformations/test", { code, request: SAMPLE });

test("forty spinning test runs of one organization do not hold another's trivial run behind them", async () => {
  let noisyDone = 0;
  const spins = Array.from({ length: 40 }, () =>
    testRun(noisy, 'addHandler("transform", () => { while (true) {} });').then((answer) => {
      noisyDone += 1;
      return answer;
    }),
  );
  await pollUntil(() => server.deps.sandbox.stats().queued >= 20, {
    what: "the noisy organization's backlog",
  });
  const before = noisyDone;
  const answer = await testRun(quiet, 'addHandler("transform", (request) => request);');
  // The check of the code and its run each wait for at most the run in the worker.
  expect(noisyDone - before).toBeLessThanOrEqual(3);
  expect(answer.status).toBe(200);
  expect(answer.body.data.error).toBeNull();
  for (const spin of await Promise.all(spins)) {
    expect(spin.body.data.error?.code).toBe("timeout");
  }
});
