import { afterAll, beforeAll, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { createEndpointWithActions } from "../test-utils/endpoints.ts";
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

// Each run tries every way of leaving something behind, then says whether it found any.
const LEAKY_SCRIPT = `
var fresh = typeof globalThis.leak === "undefined" && typeof leakedName === "undefined" &&
  Object.prototype.polluted === undefined && Array.prototype.extra === undefined &&
  JSON.note === undefined;
try { globalThis.leak = 1; } catch (e) {}
try { leakedName = 1; } catch (e) {}
try { Object.prototype.polluted = 1; } catch (e) {}
try { Array.prototype.extra = 1; } catch (e) {}
try { JSON.note = 1; } catch (e) {}
variables.count = (Number(variables.count) || 0) + 1;
return { fresh: fresh };`;

test("a run_script action's code is kept compiled between runs, and no run sees what an earlier one left", async () => {
  const endpoint = await createEndpointWithActions(server, owner, [
    { type: "run_script", config: { code: LEAKY_SCRIPT } },
    { type: "store_variable", config: { name: "count", value: "$count$" } },
    { type: "modify_response", config: { body: "fresh=$fresh$ count=$count$" } },
  ]);
  const reusedBefore = server.deps.sandbox.stats().reusedRuns;
  for (const n of [1, 2, 3, 4]) {
    const response = await fetch(`${server.url}/w/${endpoint.slug}`, {
      method: "POST",
      body: "{}",
    });
    expect(await response.text()).toBe(`fresh=true count=${n}`);
  }
  // Two workers: at least the later runs found the realm an earlier run of the action built.
  expect(server.deps.sandbox.stats().reusedRuns - reusedBefore).toBeGreaterThanOrEqual(2);
});

test("a script that needs a fresh runtime (an undeclared name, a new member of a built-in) still works on every run", async () => {
  const endpoint = await createEndpointWithActions(server, owner, [
    {
      type: "run_script",
      config: {
        code: "total = Number(request.body.n) * 2; Array.prototype.twice = function () { return total; }; variables.doubled = [].twice();",
      },
    },
    { type: "modify_response", config: { body: "doubled=$doubled$" } },
  ]);
  for (const n of [1, 2, 3]) {
    const response = await fetch(`${server.url}/w/${endpoint.slug}`, {
      method: "POST",
      body: JSON.stringify({ n }),
    });
    expect(await response.text()).toBe(`doubled=${n * 2}`);
  }
});
