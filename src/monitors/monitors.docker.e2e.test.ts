import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createOutboundPolicy } from "../http/outbound/outbound.policy.ts";
import { createOutboundSender } from "../http/outbound/outbound.sender.ts";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { type FakeDockerEngine, startFakeDockerEngine } from "../test-utils/docker-engine.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { type HttpSink, startHttpSink } from "../test-utils/http-sink.ts";
import { createMonitorAs, MONITORS_PATH } from "../test-utils/monitors.ts";
import { makeTempDir } from "../test-utils/temp-dir.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { probeDocker } from "./monitors.docker.ts";

let server: TestServer;
let owner: TestAccount;
let docker: FakeDockerEngine;
let sink: HttpSink;
const dir = makeTempDir("weir-docker-");

beforeAll(async () => {
  docker = startFakeDockerEngine(dir.path);
  sink = startHttpSink();
  server = await startTestServer();
  owner = await signUp(server, { plan: "enterprise" });
});
afterAll(async () => {
  await server.stop();
  await docker.stop();
  await sink.stop();
  dir.remove();
});

const dockerMonitor = (container: string, dockerHost = docker.dockerHost) =>
  createMonitorAs(server, owner, {
    name: container,
    type: "docker",
    container,
    docker_host: dockerHost,
    interval_seconds: 3600,
    timeout_seconds: 2,
  });

const checkNow = async (id: string, on = server, as = owner) => {
  const answer = await callAs(on, as, "POST", `${MONITORS_PATH}/${id}/check`);
  expect(answer.status).toBe(200);
  return answer.body.data as { status: string; error: string | null; response_time_ms: number };
};

describe("docker checks over the daemon's unix socket", () => {
  test("running is up, a starting health check degraded, unhealthy or stopped down", async () => {
    docker.set("web", { Running: true, Status: "running" });
    const monitor = await dockerMonitor("web");
    expect(monitor).toMatchObject({ type: "docker", container: "web" });
    expect(monitor.docker_host).toBe(docker.dockerHost);
    const up = await checkNow(monitor.id);
    expect(up).toMatchObject({ status: "up", error: null });
    expect(typeof up.response_time_ms).toBe("number");
    expect(docker.paths).toContain("/containers/web/json");

    docker.set("web", { Running: true, Status: "running", Health: { Status: "starting" } });
    expect(await checkNow(monitor.id)).toMatchObject({
      status: "degraded",
      error: "container health check is starting",
    });
    docker.set("web", { Running: true, Status: "running", Health: { Status: "healthy" } });
    expect((await checkNow(monitor.id)).status).toBe("up");
    docker.set("web", { Running: true, Status: "running", Health: { Status: "unhealthy" } });
    expect(await checkNow(monitor.id)).toMatchObject({
      status: "down",
      error: "container is unhealthy",
    });
    docker.set("web", { Running: false, Status: "exited" });
    expect(await checkNow(monitor.id)).toMatchObject({
      status: "down",
      error: "container is exited",
    });
  });

  test("an unknown container and an absent socket are down, saying which", async () => {
    const missing = await dockerMonitor("ghost");
    expect(await checkNow(missing.id)).toMatchObject({
      status: "down",
      error: "no container ghost",
    });
    const socketless = await dockerMonitor("web", `unix://${dir.path}/absent.sock`);
    const check = await checkNow(socketless.id);
    expect(check.status).toBe("down");
    expect(check.error).toStartWith(`docker socket ${dir.path}/absent.sock:`);
  });
});

describe("a socket whose answer never ends", () => {
  test("is read up to the sender's limit and judged by its State, not held until the timeout", async () => {
    const socket = join(dir.path, "endless.sock");
    const chunk = new TextEncoder().encode(`"${"x".repeat(8190)}",`);
    const endless = Bun.serve({
      unix: socket,
      fetch: () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(
                new TextEncoder().encode('{"State":{"Running":true,"Status":"running"},"Log":['),
              );
            },
            pull: (controller) => controller.enqueue(chunk),
          }),
          { headers: { "content-type": "application/json" } },
        ),
    });
    try {
      const monitor = await createMonitorAs(server, owner, {
        name: "endless",
        type: "docker",
        container: "web",
        docker_host: `unix://${socket}`,
        interval_seconds: 3600,
        timeout_seconds: 5,
      });
      const started = performance.now();
      expect(await checkNow(monitor.id)).toMatchObject({ status: "up", error: null });
      expect(performance.now() - started).toBeLessThan(4000);
    } finally {
      await endless.stop(true);
    }
  });
});

describe("docker checks over tcp", () => {
  test("a tcp daemon is asked through the outbound sender", async () => {
    sink.answer((r) =>
      r.path === "/containers/db/json"
        ? { status: 200, body: JSON.stringify({ State: { Running: true, Status: "running" } }) }
        : { status: 404, body: "{}" },
    );
    const monitor = await dockerMonitor("db", sink.url.replace("http://", "tcp://"));
    expect((await checkNow(monitor.id)).status).toBe("up");
    expect(sink.requests.some((r) => r.path === "/containers/db/json")).toBe(true);
  });

  test("an inspect answer longer than the sender reads is still judged by its State", async () => {
    const state = { Running: true, Status: "running", Health: { Status: "starting", Log: [] } };
    const long = {
      Id: "4f1c",
      State: state,
      Config: { Env: Array(4000).fill("A_VARIABLE=x".repeat(4)) },
    };
    expect(JSON.stringify(long).length).toBeGreaterThan(128 * 1024);
    sink.answer(() => ({ status: 200, body: JSON.stringify(long) }));
    const monitor = await dockerMonitor("big", sink.url.replace("http://", "tcp://"));
    expect(await checkNow(monitor.id)).toMatchObject({
      status: "degraded",
      error: "container health check is starting",
    });
  });

  test("the address policy: a denied address is a 422 on save, a denied name fails the check", async () => {
    const denied = await callAs(server, owner, "POST", MONITORS_PATH, {
      name: "metadata",
      type: "docker",
      container: "db",
      docker_host: "tcp://169.254.169.254:2375",
    });
    expect(denied.status).toBe(422);
    expect(Object.keys(denied.body.errors)).toEqual(["docker_host"]);

    // A name that resolves to the metadata address, as a rebinding attacker's would.
    const outbound = createOutboundSender({
      policy: createOutboundPolicy({ deny: [], allow: [] }),
      timeoutMs: 2000,
      resolve: async () => [{ address: "169.254.169.254", family: 4 }],
    });
    const strict = await startTestServer({ outbound });
    try {
      const account = await signUp(strict);
      const created = await createMonitorAs(strict, account, {
        name: "db",
        type: "docker",
        container: "db",
        docker_host: "tcp://metadata.example:2375",
        interval_seconds: 3600,
      });
      const check = await checkNow(created.id, strict, account);
      expect(check.status).toBe("down");
      expect(check.error).toStartWith(
        "blocked_address: metadata.example resolves to 169.254.169.254",
      );
    } finally {
      await strict.stop();
    }
  });
});

describe("a local socket under a policy that denies loopback", () => {
  // A shared instance that denies loopback must not let a tenant reach the host's own daemon (or
  // any other local socket) by its path: a socket is as local as 127.0.0.1.
  test("is a 422 on save, and a stored one fails its check without being asked", async () => {
    const strict = await startTestServer({
      config: { outbound_deny: ["127.0.0.0/8", "::1/128"], outbound_allow: [] },
    });
    try {
      const account = await signUp(strict, { plan: "enterprise" });
      const refused = await callAs(strict, account, "POST", MONITORS_PATH, {
        name: "host daemon",
        type: "docker",
        container: "web",
        docker_host: docker.dockerHost,
      });
      expect([refused.status, Object.keys(refused.body.errors ?? {})]).toEqual([
        422,
        ["docker_host"],
      ]);
      const defaulted = await callAs(strict, account, "POST", MONITORS_PATH, {
        name: "default socket",
        type: "docker",
        container: "web",
      });
      expect([defaulted.status, Object.keys(defaulted.body.errors ?? {})]).toEqual([
        422,
        ["docker_host"],
      ]);
    } finally {
      await strict.stop();
    }
    const asked = docker.paths.length;
    const checked = await probeDocker({ container: "web", docker_host: docker.dockerHost }, 2000, {
      outbound: createOutboundSender({
        policy: createOutboundPolicy({ deny: [], allow: [] }),
        timeoutMs: 2000,
      }),
      checkAddress: createOutboundPolicy({ deny: ["127.0.0.0/8", "::1/128"], allow: [] })
        .checkAddress,
      now: () => performance.now(),
    });
    expect(checked.status).toBe("down");
    expect(checked.error).toStartWith("blocked_address:");
    expect(docker.paths.length).toBe(asked);
  });
});

describe("docker monitor validation", () => {
  test("a bad container or daemon is a 422 naming the field; the socket is the default", async () => {
    const bad = await callAs(server, owner, "POST", MONITORS_PATH, {
      name: "bad",
      type: "docker",
      container: "-rm /",
      docker_host: "http://docker:2375",
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toBe("validation_failed");
    expect(Object.keys(bad.body.errors).sort()).toEqual(["container", "docker_host"]);

    const defaulted = await callAs(server, owner, "POST", MONITORS_PATH, {
      name: "local",
      type: "docker",
      container: "web",
      paused: true,
    });
    expect(defaulted.status).toBe(201);
    expect(defaulted.body.data.docker_host).toBe("unix:///var/run/docker.sock");
  });
});

describe("the OpenAPI document", () => {
  test("the monitor body lists the docker and ping fields", async () => {
    type Schema = { properties: Record<string, { description?: string }> };
    const doc = (await (await server.request("/api/openapi.json")).json()) as {
      paths: Record<
        string,
        { post: { requestBody: { content: Record<string, { schema: Schema }> } } }
      >;
    };
    const body = doc.paths["/api/v1/uptime-monitors"]?.post.requestBody.content["application/json"];
    if (!body) throw new Error("no monitor body in the OpenAPI document");
    expect(Object.keys(body.schema.properties)).toEqual(
      expect.arrayContaining(["container", "docker_host", "hostname", "group"]),
    );
    expect(body.schema.properties.type?.description).toContain("docker | ping");
  });
});
