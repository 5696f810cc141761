/**
 * Answers from capture URLs cannot act on the UI's origin (decisions.md §14): no session headers
 * in custom answers, and every answer runs sandboxed and unsniffed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs, createDebugEndpoint } from "../test-utils/endpoints.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

let server: TestServer;
let owner: TestAccount;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, { plan: "enterprise" });
});
afterAll(() => server.stop());

const expectSandboxed = (response: Response) => {
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  expect(response.headers.get("content-security-policy")).toBe("sandbox");
};

describe("custom answers may not set session headers", () => {
  test.each(["Set-Cookie", "set-cookie2", "Clear-Site-Data"])(
    "%s → 422 naming response.headers, in both families, on create and update",
    async (name) => {
      const response = { status: 200, headers: { [name]: "sid=1" }, body: "<p>hi</p>" };
      const created = await callAs(server, owner, "POST", "/api/v1/debug-endpoints", {
        debug_endpoint: { name: "Cookie jar", response },
      });
      expect(created.status).toBe(422);
      expect(created.body.errors["response.headers"][0]).toContain(name);
      const family = await callAs(server, owner, "POST", "/api/v1/endpoints", {
        debug_endpoint: { name: "Cookie jar", response },
      });
      expect(family.status).toBe(422);
      expect(Object.keys(family.body.errors)).toEqual(["response.headers"]);

      const endpoint = await createDebugEndpoint(server, owner, { name: `plain ${name}` });
      const updated = await callAs(
        server,
        owner,
        "PATCH",
        `/api/v1/debug-endpoints/${endpoint.id}`,
        {
          debug_endpoint: { response },
        },
      );
      expect(updated.status).toBe(422);
      expect(Object.keys(updated.body.errors)).toEqual(["response.headers"]);
    },
  );

  test("the sandbox headers are Weir's own: an answer cannot loosen them", async () => {
    const answer = await callAs(server, owner, "POST", "/api/v1/debug-endpoints", {
      debug_endpoint: {
        name: "Loose",
        response: { headers: { "Content-Security-Policy": "default-src *" } },
      },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.errors["response.headers"][0]).toContain("set by Weir");
  });
});

describe("every capture answer is sandboxed and unsniffed", () => {
  test("a custom HTML answer, the default answer, a preflight and a refusal", async () => {
    const html = await createDebugEndpoint(server, owner, {
      name: "Html",
      response: {
        status: 200,
        headers: { "content-type": "text/html", "x-custom": "kept" },
        body: "<script>document.cookie</script>",
      },
    });
    const custom = await fetch(`${server.url}/w/${html.slug}`, { method: "POST", body: "x" });
    expect(custom.status).toBe(200);
    expect(custom.headers.get("content-type")).toBe("text/html");
    expect(custom.headers.get("x-custom")).toBe("kept");
    expectSandboxed(custom);
    expect(await custom.text()).toBe("<script>document.cookie</script>");

    const plain = await createDebugEndpoint(server, owner, { name: "Plain" });
    const byDefault = await fetch(`${server.url}/debug/${plain.slug}/sub`, { method: "POST" });
    expect(byDefault.status).toBe(200);
    expectSandboxed(byDefault);

    const preflight = await fetch(`${server.url}/w/${plain.slug}`, {
      method: "OPTIONS",
      headers: { origin: "https://a.example", "access-control-request-method": "PUT" },
    });
    expect(preflight.status).toBe(204);
    expectSandboxed(preflight);

    const unknown = await fetch(`${server.url}/w/no-such-endpoint`, { method: "POST" });
    expect(unknown.status).toBe(404);
    expectSandboxed(unknown);
  });
});
