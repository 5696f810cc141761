import { afterAll, beforeAll, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

/**
 * Routes a read-only member may call with a method other than GET: their own account and the
 * public ones. Every other write, and everything that runs code, sends a request or could echo a
 * secret, is an admin's act, so a member gets 403 `forbidden` before anything is looked up.
 */
const MEMBER_MAY = [
  /^POST \/api\/v1\/auth\/(register|login|logout|setup)$/,
  /^POST \/api\/v1\/me\/password$/,
  /^POST \/api\/v1\/anonymous-endpoints$/,
  /^POST \/api\/v1\/sources\/\{id\}\/ingest$/,
  // Dry runs of the editors: they read events and settings, store nothing and run no user code.
  /^POST \/api\/v1\/filters\/test$/,
  /^POST \/api\/v1\/sources\/\{id\}\/dedup\/check$/,
];

/** Routes that run code or send a request: an admin gets past the role check (not a 403). */
const ADMIN_ACTS = [
  "POST /api/v1/transformations/test",
  "POST /api/v1/transformations/{id}/test",
  "POST /api/v1/alert-rules/{id}/test",
  "POST /api/v1/endpoints/{id}/requests/{request_id}/replay",
  "POST /api/v1/events/{id}/retry",
];

const NO_SUCH_ID = "01900000-0000-7000-8000-000000000000";

let server: TestServer;
let owner: TestAccount;
let admin: TestAccount;
let member: TestAccount;
beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server);
  admin = await owner.addMember("admin");
  member = await owner.addMember("member");
});
afterAll(() => server.stop());

async function writeRoutes() {
  const doc = (await apiCall(server, "GET", "/api/openapi.json")).body;
  return Object.entries(doc.paths as Record<string, Record<string, unknown>>)
    .filter(([path]) => path.startsWith("/api/v1/"))
    .flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`))
    .filter((route) => !route.startsWith("GET "));
}

function concrete(route: string, account: TestAccount) {
  const [method, template] = route.split(" ") as [string, string];
  const path = template
    .replace("{org_id}", account.organizationId)
    .replace(/\{[^}]+\}/g, NO_SUCH_ID);
  return [method, path] as const;
}

test("a member gets 403 forbidden from every route that writes, runs code or sends", async () => {
  const routes = (await writeRoutes()).filter((r) => !MEMBER_MAY.some((p) => p.test(r)));
  // On PostgreSQL the rooms that do not run there yet have no routes in the document.
  const acts = ADMIN_ACTS;
  expect(routes).toEqual(expect.arrayContaining(acts));
  const open: string[] = [];
  for (const route of routes) {
    const [method, path] = concrete(route, member);
    const answer = await apiCall(server, method, path, { body: {}, headers: member.headers });
    if (answer.status !== 403 || answer.body?.error !== "forbidden") {
      open.push(`${route} → ${answer.status} ${answer.body?.error}`);
    }
  }
  expect(open).toEqual([]);
});

test("an admin gets past the role check of the routes that run code or send", async () => {
  const refused: string[] = [];
  for (const route of ADMIN_ACTS) {
    const [method, path] = concrete(route, admin);
    const answer = await apiCall(server, method, path, { body: {}, headers: admin.headers });
    if (answer.status === 403) refused.push(route);
  }
  expect(refused).toEqual([]);
});

test("a member cannot read a secret through a transformation's context.env", async () => {
  const secret = await callAs(server, owner, "POST", "/api/v1/secrets", {
    name: "OWNER_TOKEN",
    value: "s3cr3t-owner-value",
  });
  expect(secret.status).toBe(201);
  const code =
    'addHandler("transform", (request, context) => ({ ...request, body: JSON.stringify(context.env) }));';
  const saved = await callAs(server, owner, "POST", "/api/v1/transformations", {
    name: "Env",
    code,
  });
  const request = { method: "POST", path: "/", query: {}, headers: {}, body: "{}" };
  const unsaved = await callAs(server, member, "POST", "/api/v1/transformations/test", {
    code,
    request,
  });
  const stored = await callAs(
    server,
    member,
    "POST",
    `/api/v1/transformations/${saved.body.data.id}/test`,
    { request },
  );
  for (const answer of [unsaved, stored]) {
    expect([answer.status, answer.body]).toEqual([403, { error: "forbidden" }]);
  }
  const byAdmin = await callAs(server, admin, "POST", "/api/v1/transformations/test", {
    code,
    request,
  });
  expect(byAdmin.status).toBe(200);
  expect(byAdmin.body.data.request.body).toContain("s3cr3t-owner-value");
});
