import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { type AppDeps, closeDeps, createDeps } from "../deps.ts";
import { startRooms } from "../room.ts";
import type { Config } from "../shared/config.table.ts";
import { loadConfig } from "../shared/config.ts";
import { createLogger } from "../shared/logger.ts";
import { createFakeClock, type FakeClock } from "../test-utils/fake-clock.ts";
import { type HttpSink, startHttpSink } from "../test-utils/http-sink.ts";
import { createManualScheduler, type ManualScheduler } from "../test-utils/manual-scheduler.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { makeTempDir } from "../test-utils/temp-dir.ts";
import type {
  AttemptObserver,
  DeliveryAttempt,
  DeliveryRecord,
  NewDelivery,
  Prepared,
} from "./delivery.ports.ts";
import { createDeliveryRoom, type DeliveryRoomPorts } from "./delivery.room.ts";
import { generateSigningSecret } from "./delivery.signing.ts";

/** The outbox alone, on a real SQLite file, a real sink and the real sender; time is a fake clock. */
interface Outbox {
  deps: AppDeps;
  ports: DeliveryRoomPorts;
  clock: FakeClock;
  scheduler: ManualScheduler;
  attempted: DeliveryAttempt[];
  stop(): Promise<void>;
}

const OPEN_MS = 30_000;
/** Signs the test kind's deliveries when set (reset after each test). */
let secret = "";
let sink: HttpSink;
const dirs: { remove(): void }[] = [];
const running: Outbox[] = [];
beforeAll(() => {
  sink = startHttpSink();
});
afterAll(async () => {
  await sink.stop();
  for (const dir of dirs) dir.remove();
});
afterEach(async () => {
  for (const outbox of running.splice(0)) await outbox.stop();
  sink.requests.length = 0;
  sink.answer(() => ({ status: 200, body: "ok" }));
  secret = "";
});

/** The test's kind: an "event" to the sink's path named by its subject, signed. */
const eventKind = {
  prepare: async (delivery: DeliveryRecord): Promise<Prepared> => ({
    send: {
      url: `${sink.url}/${delivery.subjectId}`,
      method: "POST",
      headers: [["content-type", "application/json"]],
      body: JSON.stringify({ subject: delivery.subjectId }),
      signingSecrets: secret ? [secret] : [],
    },
  }),
  /** Like Telegram: the wait is in the JSON body, `parameters.retry_after` seconds. */
  retryAfterMs: (_delivery: DeliveryRecord, response: { body: Uint8Array }) => {
    const text = new TextDecoder().decode(response.body);
    const seconds = text.startsWith("{") ? JSON.parse(text)?.parameters?.retry_after : undefined;
    return typeof seconds === "number" ? seconds * 1000 : null;
  },
};

async function startOutbox(
  dataDir = newDir(),
  clock = createFakeClock(),
  config: Partial<Config> = {},
  observer?: AttemptObserver,
): Promise<Outbox> {
  const base = loadConfig({ env: {}, flags: { data_dir: dataDir } }).config;
  const scheduler = createManualScheduler();
  const deps = await createDeps(
    {
      ...base,
      durability: "normal",
      retry_base_ms: 1000,
      retry_cap_ms: 60_000,
      breaker_open_ms: OPEN_MS,
      ...config,
    },
    { clock, scheduler, logger: createLogger({ level: "error", write: () => {} }) },
  );
  const room = createDeliveryRoom(deps);
  room.ports.registerKind("event", eventKind);
  if (observer) room.ports.observeAttempts(observer);
  const attempted: DeliveryAttempt[] = [];
  deps.bus.on("delivery.attempted", ({ attempt }) => {
    attempted.push(attempt);
  });
  const stopRooms = startRooms([room], deps);
  scheduler.start();
  deps.bus.publish("server.started", { baseUrl: "", port: 0 });
  const outbox: Outbox = {
    deps,
    ports: room.ports,
    clock,
    scheduler,
    attempted,
    async stop() {
      const at = running.indexOf(outbox);
      if (at >= 0) running.splice(at, 1);
      await stopRooms();
      closeDeps(deps);
    },
  };
  running.push(outbox);
  return outbox;
}

function newDir(): string {
  const dir = makeTempDir("weir-outbox-");
  dirs.push(dir);
  return dir.path;
}

const event = (subjectId: string, maxRetries = 15, key = "dest-1"): NewDelivery => ({
  kind: "event",
  organizationId: "org-1",
  subjectId,
  destinationKey: key,
  maxRetries,
});

function enqueue(outbox: Outbox, ...items: NewDelivery[]): DeliveryRecord[] {
  const rows = outbox.deps.db.tx((tx) => outbox.ports.enqueue(tx, items));
  outbox.ports.wake();
  return rows;
}

const deliveryOf = async (outbox: Outbox, subjectId: string): Promise<DeliveryRecord> => {
  const [found] = await outbox.ports.listBySubject("event", [subjectId]);
  if (!found) throw new Error(`no delivery for ${subjectId}`);
  return found;
};

/** Waits until the subject's delivery has `attempts` attempts recorded and is not leased. */
const settled = (outbox: Outbox, subjectId: string, attempts: number) =>
  pollUntil(
    async () => {
      const found = await deliveryOf(outbox, subjectId);
      return found.attempts === attempts && found.status !== "delivering" && found;
    },
    { what: `${subjectId} after ${attempts} attempts` },
  );

/** Moves the fake clock and runs the queue's fallback poll (the manual scheduler's wake). */
async function advance(outbox: Outbox, ms: number): Promise<void> {
  outbox.clock.advance(ms);
  await outbox.scheduler.run("delivery.poll");
}

const nextInMs = (outbox: Outbox, delivery: DeliveryRecord) =>
  Date.parse(delivery.nextAttemptAt ?? "") - outbox.clock.now();

describe("delivering", () => {
  test("a row is sent, signed (Standard Webhooks), its attempt recorded and published after commit", async () => {
    secret = generateSigningSecret();
    // The verifier checks the timestamp against the real time.
    const outbox = await startOutbox(newDir(), createFakeClock(Date.now()));
    sink.answer(() => ({ status: 200, body: "thanks", headers: { "x-reply": "1" } }));
    const [queued] = enqueue(outbox, event("a1"));
    const done = await settled(outbox, "a1", 1);
    expect(done).toMatchObject({ status: "delivered", lastStatusCode: 200, nextAttemptAt: null });
    expect(done.webhookId).toBe(queued?.webhookId as string);
    const [received] = sink.requests;
    const headers = Object.fromEntries(received?.headers ?? []);
    expect(headers["webhook-id"]).toBe(done.webhookId);
    const body = new TextDecoder().decode(received?.body);
    expect(new Webhook(secret).verify(body, headers)).toEqual({ subject: "a1" });
    const [attempt] = await outbox.ports.listAttempts(done.id, 10);
    expect(attempt).toMatchObject({
      attempt: 1,
      statusCode: 200,
      responseBody: "thanks",
      errorType: null,
      method: "POST",
    });
    expect(attempt?.responseHeaders).toContainEqual(["x-reply", "1"]);
    await pollUntil(() => outbox.attempted.length === 1, { what: "the bus notice" });
  });

  test("a rolled-back cause writes no delivery", async () => {
    const outbox = await startOutbox();
    expect(() =>
      outbox.deps.db.tx((tx) => {
        outbox.ports.enqueue(tx, [event("gone")]);
        throw new Error("the cause failed");
      }),
    ).toThrow("the cause failed");
    expect(await outbox.ports.listBySubject("event", ["gone"])).toEqual([]);
  });
});

describe("an attempt whose lease was lost before its outcome was recorded", () => {
  test("is recorded and its observers hear it; the row is the new owner's", async () => {
    const heard: string[] = [];
    const outbox = await startOutbox(undefined, undefined, {}, (_tx, delivery) => {
      heard.push(delivery.subjectId);
    });
    // Another claim takes the row while the destination answers (its lease moves).
    sink.answer(() => {
      outbox.deps.db.sqlite.run(
        "UPDATE deliveries SET locked_until = locked_until + 1 WHERE subject_id = 'lost'",
      );
      return { status: 500, body: "down" };
    });
    enqueue(outbox, event("lost"));
    const attemptsOnDisk = () =>
      outbox.deps.db.sqlite
        .query<{ n: number }, []>(
          `SELECT count(*) AS n FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
            WHERE d.subject_id = 'lost'`,
        )
        .get()?.n ?? 0;
    await pollUntil(() => attemptsOnDisk() === 1, { what: "the attempt recorded" });
    expect(heard).toEqual(["lost"]);
    // The row is as the other claim left it: this outcome did not write it.
    const row = await deliveryOf(outbox, "lost");
    expect([row.status, row.attempts]).toEqual(["delivering", 0]);
  });
});

describe("retries (fake clock)", () => {
  test("backoff from WEIR_RETRY_BASE_MS with ±20 % jitter; the webhook-id stays the same", async () => {
    secret = generateSigningSecret();
    const outbox = await startOutbox();
    let calls = 0;
    sink.answer(() => ({ status: ++calls <= 2 ? 500 : 200 }));
    enqueue(outbox, event("b1"));
    const first = await settled(outbox, "b1", 1);
    expect(first).toMatchObject({ status: "retrying", lastErrorType: "http_error" });
    expect(first.lastErrorCode).toBe("500");
    expect(nextInMs(outbox, first)).toBeGreaterThanOrEqual(800);
    expect(nextInMs(outbox, first)).toBeLessThanOrEqual(1200);
    await advance(outbox, 799);
    expect((await deliveryOf(outbox, "b1")).attempts).toBe(1);
    await advance(outbox, 401);
    const second = await settled(outbox, "b1", 2);
    expect(nextInMs(outbox, second)).toBeGreaterThanOrEqual(1600);
    expect(nextInMs(outbox, second)).toBeLessThanOrEqual(2400);
    await advance(outbox, 2400);
    const third = await settled(outbox, "b1", 3);
    expect(third.status).toBe("delivered");
    const ids = new Set(sink.requests.map((r) => r.headers.get("webhook-id")));
    expect([...ids]).toEqual([third.webhookId]);
    const attempts = await outbox.ports.listAttempts(third.id, 10);
    expect(attempts.map((a) => a.attempt)).toEqual([3, 2, 1]);
  });

  test("Retry-After is honoured (seconds and HTTP-date), never beyond the cap", async () => {
    const outbox = await startOutbox();
    sink.answer((r) => {
      if (r.path === "/s") return { status: 429, headers: { "retry-after": "20" } };
      if (r.path === "/date") {
        const at = new Date(outbox.clock.now() + 40_000).toUTCString();
        return { status: 503, headers: { "retry-after": at } };
      }
      return { status: 503, headers: { "retry-after": "86400" } };
    });
    enqueue(outbox, event("s", 15, "k1"), event("date", 15, "k2"), event("huge", 15, "k3"));
    expect(nextInMs(outbox, await settled(outbox, "s", 1))).toBe(20_000);
    const dated = nextInMs(outbox, await settled(outbox, "date", 1));
    expect(dated).toBeGreaterThan(39_000);
    expect(dated).toBeLessThanOrEqual(40_000);
    expect(nextInMs(outbox, await settled(outbox, "huge", 1))).toBe(60_000);
  });

  test("a kind may read the destination's own retry hint (e.g. in the answer's body)", async () => {
    const outbox = await startOutbox();
    sink.answer(() => ({ status: 429, body: JSON.stringify({ parameters: { retry_after: 30 } }) }));
    enqueue(outbox, event("hinted", 15, "k1"));
    expect(nextInMs(outbox, await settled(outbox, "hinted", 1))).toBe(30_000);
  });

  test("max_retries 0: one attempt, then failed; max_retries 2: three attempts, then failed", async () => {
    const outbox = await startOutbox();
    sink.answer(() => ({ status: 502 }));
    enqueue(outbox, event("zero", 0, "z0"), event("two", 2, "z2"));
    expect(await settled(outbox, "zero", 1)).toMatchObject({
      status: "failed",
      nextAttemptAt: null,
    });
    await settled(outbox, "two", 1);
    await advance(outbox, 1200);
    await settled(outbox, "two", 2);
    await advance(outbox, 2400);
    const ended = await settled(outbox, "two", 3);
    expect(ended).toMatchObject({ status: "failed", nextAttemptAt: null });
    await advance(outbox, 60_000);
    expect((await deliveryOf(outbox, "two")).attempts).toBe(3);
    expect(sink.requests.filter((r) => r.path === "/two")).toHaveLength(3);
  });

  test("requeue gives a failed delivery a fresh budget and keeps its webhook-id", async () => {
    const outbox = await startOutbox();
    sink.answer(() => ({ status: 500 }));
    enqueue(outbox, event("rq", 0));
    const failed = await settled(outbox, "rq", 1);
    expect(failed.status).toBe("failed");
    sink.answer(() => ({ status: 204 }));
    const count = outbox.deps.db.tx((tx) => outbox.ports.requeue(tx, "event", "rq"));
    expect(count).toBe(1);
    outbox.ports.wake();
    const again = await settled(outbox, "rq", 2);
    expect(again).toMatchObject({ status: "delivered", webhookId: failed.webhookId });
  });

  test("a network error is recorded with its §8 code and retried", async () => {
    const outbox = await startOutbox();
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    const port = closed.port;
    closed.stop(true);
    outbox.ports.registerKind("alert", {
      prepare: async () => ({
        send: {
          url: `http://127.0.0.1:${port}/`,
          method: "POST",
          headers: [],
          body: "x",
          signingSecrets: [],
        },
      }),
    });
    outbox.deps.db.tx((tx) =>
      outbox.ports.enqueue(tx, [{ ...event("net"), kind: "alert", destinationKey: "down" }]),
    );
    outbox.ports.wake();
    const [found] = await pollUntil(async () => {
      const rows = await outbox.ports.listBySubject("alert", ["net"]);
      return rows[0]?.attempts === 1 && rows[0].status !== "delivering" && rows;
    });
    expect(found).toMatchObject({
      status: "retrying",
      lastErrorType: "network_error",
      lastErrorCode: "connection_refused",
    });
  });
});

describe("circuit breaker per destination (fake clock)", () => {
  test("opens after 5 failures in a row; waiting rows record circuit_open once; survives a restart; a probe closes it", async () => {
    const dataDir = newDir();
    const clock = createFakeClock();
    let outbox = await startOutbox(dataDir, clock);
    sink.answer((r) => ({ status: r.path.startsWith("/f") ? 500 : 200 }));
    enqueue(outbox, ...[1, 2, 3, 4, 5].map((n) => event(`f${n}`, 0, "flaky")));
    for (const n of [1, 2, 3, 4, 5]) await settled(outbox, `f${n}`, 1);
    // A healthy destination is not held up by the open one.
    enqueue(outbox, event("healthy", 0, "fine"));
    expect((await settled(outbox, "healthy", 1)).status).toBe("delivered");

    enqueue(outbox, event("w1", 3, "flaky"));
    const waiting = await pollUntil(async () => {
      const found = await deliveryOf(outbox, "w1");
      return found.lastErrorCode === "circuit_open" && found.status !== "delivering" && found;
    });
    expect(waiting).toMatchObject({
      status: "pending",
      attempts: 0,
      lastErrorType: "circuit_breaker_error",
    });
    expect(nextInMs(outbox, waiting)).toBe(OPEN_MS);
    const sent = sink.requests.length;

    // Restart on the same data dir: the breaker is still open.
    await outbox.stop();
    outbox = await startOutbox(dataDir, clock);
    await advance(outbox, OPEN_MS - 1);
    expect(sink.requests.length).toBe(sent);
    const attempts = await outbox.ports.listAttempts(waiting.id, 10);
    expect(attempts.map((a) => [a.errorType, a.errorCode])).toEqual([
      ["circuit_breaker_error", "circuit_open"],
    ]);

    // Half-open: one probe goes; its success closes the breaker.
    sink.answer(() => ({ status: 200 }));
    await advance(outbox, 1);
    const delivered = await settled(outbox, "w1", 1);
    expect(delivered.status).toBe("delivered");
    enqueue(outbox, event("after", 0, "flaky"));
    expect((await settled(outbox, "after", 1)).status).toBe("delivered");
  });

  test("a failed probe opens it again for another period", async () => {
    const outbox = await startOutbox();
    sink.answer(() => ({ status: 500 }));
    enqueue(outbox, ...[1, 2, 3, 4, 5].map((n) => event(`p${n}`, 0, "bad")));
    for (const n of [1, 2, 3, 4, 5]) await settled(outbox, `p${n}`, 1);
    enqueue(outbox, event("probe", 5, "bad"));
    await pollUntil(
      async () => (await deliveryOf(outbox, "probe")).lastErrorCode === "circuit_open",
    );
    await advance(outbox, OPEN_MS);
    const probed = await settled(outbox, "probe", 1);
    expect(probed).toMatchObject({ status: "retrying", lastErrorCode: "500" });
    // Its own retry (≤ 1.2 s) comes while the breaker is open again: it waits for it.
    await advance(outbox, 1200);
    const held = await pollUntil(async () => {
      const found = await deliveryOf(outbox, "probe");
      return found.lastErrorCode === "circuit_open" && found.status !== "delivering" && found;
    });
    expect(held.attempts).toBe(1);
    expect(nextInMs(outbox, held)).toBe(OPEN_MS - 1200);
  });
});
