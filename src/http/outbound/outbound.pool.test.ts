import { describe, expect, test } from "bun:test";
import { OutboundConnection } from "./outbound.connection.ts";
import { ConnectionPool } from "./outbound.pool.ts";

// The pool's rules on its own, with a hand-moved clock and connections that never opened.
const connection = (key = "http://a.example") =>
  new OutboundConnection({ key, address: "192.0.2.1", port: 80, tls: null });

function poolAt(limits: Partial<{ perOrigin: number; total: number; idleMs: number }> = {}) {
  const clock = { now: 1_000 };
  const pool = new ConnectionPool(
    { perOrigin: 2, total: 3, idleMs: 4_000, ...limits },
    () => clock.now,
  );
  return { pool, clock };
}

describe("the idle connection pool", () => {
  test("the most recently parked connection of the origin is taken first", () => {
    const { pool } = poolAt();
    const [older, newer] = [connection(), connection()];
    pool.put(older);
    pool.put(newer);
    expect(pool.take("http://a.example")).toBe(newer);
    expect(pool.take("http://a.example")).toBe(older);
    expect(pool.take("http://a.example")).toBeNull();
    expect(pool.take("http://b.example")).toBeNull();
    expect(pool.size).toBe(0);
  });

  test("bounded per origin and overall: a connection over a bound is closed", () => {
    const { pool } = poolAt();
    const kept = [connection(), connection()];
    const overOrigin = connection();
    for (const c of [...kept, overOrigin]) pool.put(c);
    expect([overOrigin.closed, pool.size]).toEqual([true, 2]);
    const other = connection("http://b.example");
    const overTotal = connection("http://c.example");
    pool.put(other);
    pool.put(overTotal);
    expect([other.closed, overTotal.closed, pool.size]).toEqual([false, true, 3]);
  });

  test("a connection idle past the limit is closed instead of taken", () => {
    const { pool, clock } = poolAt({ idleMs: 4_000 });
    const idle = connection();
    pool.put(idle);
    clock.now += 4_000;
    expect(pool.take("http://a.example")).toBeNull();
    expect(idle.closed).toBe(true);
  });

  test("a server's shorter Keep-Alive timeout wins, less a second; one of a second or less is not kept", () => {
    const { pool, clock } = poolAt({ idleMs: 4_000 });
    const hinted = connection();
    pool.put(hinted, 2_000);
    clock.now += 999;
    expect(pool.take("http://a.example")).toBe(hinted);
    pool.put(hinted, 2_000);
    clock.now += 1_000;
    expect(pool.take("http://a.example")).toBeNull();
    const short = connection();
    pool.put(short, 1_000);
    expect([short.closed, pool.size]).toEqual([true, 0]);
  });

  test("a closed connection is neither kept nor taken", () => {
    const { pool } = poolAt();
    const closed = connection();
    closed.destroy();
    pool.put(closed);
    expect(pool.size).toBe(0);
  });
});
