import { describe, expect, test } from "bun:test";
import { pollUntil } from "../test-utils/poll.ts";
import { createBus } from "./bus.ts";
import { createIds } from "./ids.ts";
import { createLogger } from "./logger.ts";

const captureLogger = (level: "debug" | "info" | "warn" | "error" = "debug") => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    level,
    write: (line) => lines.push(JSON.parse(line)),
    now: () => 0,
  });
  return { logger, lines };
};

describe("logger", () => {
  test("writes JSON lines with level, message, bound and call fields", () => {
    const { logger, lines } = captureLogger();
    logger.child({ scope: "capture" }).info("stored", { request_id: "r1" });
    expect(lines).toEqual([
      {
        time: "1970-01-01T00:00:00.000Z",
        level: "info",
        msg: "stored",
        scope: "capture",
        request_id: "r1",
      },
    ]);
  });

  test("drops lines below the level", () => {
    const { logger, lines } = captureLogger("warn");
    logger.debug("a");
    logger.info("b");
    logger.warn("c");
    logger.error("d");
    expect(lines.map((l) => l.msg)).toEqual(["c", "d"]);
  });

  test("errors keep their message and stack", () => {
    const { logger, lines } = captureLogger();
    logger.error("failed", { error: new Error("nope") });
    expect(lines[0]?.error).toMatchObject({
      message: "nope",
      stack: expect.stringContaining("Error: nope"),
    });
  });
});

/** The bus knows no room: its tests use an event map of their own. */
interface TestEvents {
  "server.started": { baseUrl: string; port: number };
  "server.stopping": Record<string, never>;
}

describe("bus", () => {
  test("delivers to subscribers in order; unsubscribe stops delivery", () => {
    const { logger } = captureLogger();
    const bus = createBus<TestEvents>(logger);
    const seen: string[] = [];
    const off = bus.on("server.started", (e) => {
      seen.push(`a${e.port}`);
    });
    bus.on("server.started", (e) => {
      seen.push(`b${e.port}`);
    });
    bus.publish("server.started", { baseUrl: "x", port: 1 });
    off();
    bus.publish("server.started", { baseUrl: "x", port: 2 });
    expect(seen).toEqual(["a1", "b1", "b2"]);
  });

  test("a throwing or rejecting subscriber is logged and does not stop the others", async () => {
    const { logger, lines } = captureLogger();
    const bus = createBus<TestEvents>(logger);
    const seen: number[] = [];
    bus.on("server.started", () => {
      throw new Error("sync boom");
    });
    bus.on("server.started", async () => {
      throw new Error("async boom");
    });
    bus.on("server.started", (e) => {
      seen.push(e.port);
    });
    expect(() => bus.publish("server.started", { baseUrl: "x", port: 7 })).not.toThrow();
    expect(seen).toEqual([7]);
    await pollUntil(() => lines.length === 2, { what: "both failures logged" });
    expect(lines.every((l) => l.msg === "bus subscriber failed")).toBe(true);
  });

  test("two buses do not hear each other", () => {
    const { logger } = captureLogger();
    const a = createBus<TestEvents>(logger);
    const b = createBus<TestEvents>(logger);
    let heard = false;
    b.on("server.stopping", () => {
      heard = true;
    });
    a.publish("server.stopping", {});
    expect(heard).toBe(false);
  });
});

describe("ids", () => {
  test("uuid v7 are unique and sort by creation", () => {
    const ids = createIds();
    const list = Array.from({ length: 1000 }, () => ids.uuid());
    expect(new Set(list).size).toBe(1000);
    expect([...list].sort()).toEqual(list);
    expect(list[0]).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  test("base62 has the requested length and alphabet, and covers it", () => {
    const ids = createIds();
    const sample = Array.from({ length: 200 }, () => ids.base62(32)).join("");
    expect(ids.base62(32)).toMatch(/^[0-9A-Za-z]{32}$/);
    expect(new Set(sample).size).toBe(62);
  });
});
