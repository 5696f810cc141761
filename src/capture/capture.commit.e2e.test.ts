import { describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { closeDeps } from "../deps.ts";
import type { DomainEvents } from "../events.ts";
import { storedRequestIn } from "../test-utils/capture-fixtures.ts";
import {
  type CaptureServer,
  startCaptureServer,
  useCaptureServers,
} from "../test-utils/capture-server.ts";
import { readJson } from "../test-utils/json.ts";
import { pollUntil } from "../test-utils/poll.ts";

const startServer = useCaptureServers();
type Captured = DomainEvents["request.captured"];

describe("custom response", () => {
  test("status, headers and body replace the default answer; the stored status is the one sent", async () => {
    const server = await startServer();
    const endpoint = await server.endpoint({
      response: {
        status: 202,
        headers: { "Content-Type": "text/plain", "X-Reply": "yes" },
        body: "accepted, thanks",
        delayMs: 0,
      },
    });
    const response = await server.request(`/w/${endpoint.slug}`, { method: "POST", body: "x" });
    expect(response.status).toBe(202);
    expect(response.headers.get("x-reply")).toBe("yes");
    expect(response.headers.get("content-type")).toBe("text/plain");
    expect(await response.text()).toBe("accepted, thanks");
    expect((await server.stored(endpoint.id))[0]?.status).toBe(202);
  });

  test("a delayed answer holds only its own sender, and the request is stored before it", async () => {
    const server = await startServer();
    const slow = await server.endpoint({
      response: { status: 200, headers: {}, body: "slow", delayMs: 5_000 },
    });
    const fast = await server.endpoint();
    let slowAnswered = false;
    const slowAnswer = server.request(`/w/${slow.slug}`, { method: "POST" }).then(async (r) => {
      slowAnswered = true;
      return { status: r.status, body: await r.text() };
    });
    // Durable first: the row is in the database while the answer is still held.
    await pollUntil(async () => (await server.stored(slow.id)).length === 1, {
      what: "the slow request's row",
    });
    expect(slowAnswered).toBe(false);
    // Another sender is not held: answered, and stored, while the slow one still waits.
    const fastAnswer = await server.request(`/w/${fast.slug}`, { method: "POST" });
    expect(fastAnswer.status).toBe(200);
    expect(await server.stored(fast.id)).toHaveLength(1);
    expect(slowAnswered).toBe(false);
    expect(await slowAnswer).toEqual({ status: 200, body: "slow" });
  });
});

describe("request.captured", () => {
  test("is published after the commit, once per request, in capture order", async () => {
    const server = await startServer();
    const endpoint = await server.endpoint();
    const seen: Array<{ event: Captured; storedThen: Promise<boolean> }> = [];
    server.deps.bus.on("request.captured", (event) => {
      // The read starts while the event is heard: it sees only what was committed before.
      const read = storedRequestIn(server, event.request.id);
      seen.push({ event, storedThen: read.then((row) => row !== null) });
    });
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        server.request(`/w/${endpoint.slug}/n${i}`, { method: "POST", body: `body ${i}` }),
      ),
    );
    const ids = await Promise.all(answers.map(async (a) => (await readJson(a)).request_id));
    expect(seen).toHaveLength(40);
    expect(await Promise.all(seen.map((s) => s.storedThen))).toEqual(Array(40).fill(true));
    expect(new Set(seen.map((s) => s.event.request.id))).toEqual(new Set(ids));
    // Capture order: ids are time-ordered and taken when a request is queued for its commit.
    const order = seen.map((s) => s.event.request.id);
    expect(order).toEqual([...order].sort());
    const first = seen[0]?.event;
    expect(first?.endpoint).toEqual({
      id: endpoint.id,
      organizationId: endpoint.organizationId,
      slug: endpoint.slug,
      forwardUrl: null,
    });
    expect(new TextDecoder().decode(first?.request.body)).toMatch(/^body \d+$/);
  });

  test("is not published for a refused request", async () => {
    const server = await startServer({ config: { max_body_bytes: 10 } });
    const endpoint = await server.endpoint();
    let events = 0;
    server.deps.bus.on("request.captured", () => {
      events += 1;
    });
    expect(
      (await server.request(`/w/${endpoint.slug}`, { method: "POST", body: "x".repeat(11) }))
        .status,
    ).toBe(413);
    expect((await server.request("/w/unknown-hook", { method: "POST" })).status).toBe(404);
    expect(events).toBe(0);
  });
});

/** From now on, inserts of captured rows where `when` holds fail, as a full disk would make them. */
async function refuseInserts(server: CaptureServer, name: string, when: string) {
  if (!server.postgres) {
    await server.run(
      `CREATE TRIGGER ${name} BEFORE INSERT ON captured_requests WHEN ${when} BEGIN SELECT RAISE(ABORT, 'disk trouble'); END`,
    );
    return;
  }
  await server.run(
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk trouble'; END $$`,
  );
  await server.run(
    `CREATE TRIGGER ${name} BEFORE INSERT ON captured_requests FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION ${name}()`,
  );
}

async function allowInserts(server: CaptureServer, name: string) {
  await server.run(`DROP TRIGGER ${name}${server.postgres ? " ON captured_requests" : ""}`);
}

describe("a failed commit", () => {
  test("answers 500 to every request of the batch and never 200 for a row that is not stored", async () => {
    const server = await startServer();
    const endpoint = await server.endpoint();
    let events = 0;
    server.deps.bus.on("request.captured", () => {
      events += 1;
    });
    // Every insert fails from now on, as a full disk or an I/O error would make it.
    await refuseInserts(server, "refuse", "TRUE");
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        server.request(`/w/${endpoint.slug}`, { method: "POST", body: "x" }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(500));
    const body = await readJson(answers[0] as Response);
    expect(body).toEqual({ error: "internal_error", request_id: expect.any(String) });
    expect(await server.stored(endpoint.id)).toHaveLength(0);
    expect(events).toBe(0);
    // Once the disk is fine again, capture is too.
    await allowInserts(server, "refuse");
    expect((await server.request(`/w/${endpoint.slug}`, { method: "POST" })).status).toBe(200);
  });

  test("a failure of some rows fails their whole batch: each 200 is stored, each missing row got 500", async () => {
    const server = await startServer();
    const endpoint = await server.endpoint();
    await refuseInserts(server, "refuse_put", "NEW.method = 'PUT'");
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        server.request(`/w/${endpoint.slug}`, { method: i % 10 === 0 ? "PUT" : "POST" }),
      ),
    );
    const ok = await Promise.all(
      answers.filter((a) => a.status === 200).map(async (a) => (await readJson(a)).request_id),
    );
    const stored = (await server.stored(endpoint.id)).map((row) => row.id);
    expect(new Set(stored)).toEqual(new Set(ok));
    expect(answers.every((a) => a.status === 200 || a.status === 500)).toBe(true);
    expect(answers.filter((a) => a.status === 500).length).toBeGreaterThanOrEqual(6);
  });
});

test("stopping the app lets in-flight captures finish and keeps them", async () => {
  const server = await startCaptureServer();
  let stopped = false;
  try {
    const endpoint = await server.endpoint({
      response: { status: 200, headers: {}, body: "bye", delayMs: 300 },
    });
    const inFlight = server.request(`/w/${endpoint.slug}`, { method: "POST", body: "last words" });
    // Wait until the request is stored (its answer is being held by the delay), then stop.
    while ((await server.stored(endpoint.id)).length === 0) await Bun.sleep(5);
    await server.weir.stop();
    stopped = true;
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe("bye");
    expect(new TextDecoder().decode((await server.stored(endpoint.id))[0]?.body)).toBe(
      "last words",
    );
  } finally {
    if (stopped) {
      closeDeps(server.deps);
      rmSync(server.dataDir, { recursive: true, force: true });
    } else await server.stop();
  }
});
