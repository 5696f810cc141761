import { expect, test } from "bun:test";
import type { RetriedDelivery } from "../delivery/delivery.ports.ts";
import type { EventCursor } from "./events.repo.ts";
import { createBulkRetry } from "./events.retry.service.ts";

/** `count` failed events of organization `org` of one delivery each, walked by cursor as the repo walks them. */
function world(count: number) {
  const events: EventCursor[] = Array.from({ length: count }, (_, i) => ({
    id: `e${String(i).padStart(5, "0")}`,
    createdAt: "2026-01-01T00:00:00.000Z",
  }));
  const failed = new Set(events.map((e) => e.id));
  const seen = { batches: [] as number[], reopened: 0 };
  // Each yield parks the run until the test lets it go on; `parked` resolves when it is parked.
  let resume: (() => void) | null = null;
  let parked: Promise<void> = Promise.resolve();
  let reachedPark: () => void = () => {};
  const expectPark = () => {
    parked = new Promise<void>((resolve) => {
      reachedPark = resolve;
    });
  };
  expectPark();
  const bulk = createBulkRetry({
    events: {
      retryBatch: async (org, _q, cursor, limit) =>
        org === "org"
          ? events.filter((e) => cursor === null || e.id > cursor.id).slice(0, limit)
          : [],
    },
    retryInTx: async (ids, _destinationId, reopen) => {
      seen.batches.push(ids.length);
      const done: RetriedDelivery[] = ids.map((id) => {
        const action = failed.delete(id) ? ("requeued" as const) : ("unchanged" as const);
        return { id: `d-${id}`, subjectId: id, destinationKey: "dst", action };
      });
      for (const n of reopen(done).values()) seen.reopened += n;
      return done;
    },
    wake: () => {},
    yieldTurn: () =>
      new Promise<void>((resolve) => {
        resume = resolve;
        reachedPark();
      }),
  });
  /** Lets the parked run go on; resolves once it parks again (or is about to end). */
  const goOn = () => {
    expectPark();
    resume?.();
  };
  return { bulk, seen, failed, parked: () => parked, goOn };
}

test("bounded batches, one transaction each, the event loop let go between them; one run per organization at a time", async () => {
  const w = world(1_200);
  const running = w.bulk.run("org", {});
  await w.parked();
  // The first batch is done and the run waits for its turn: a second call is refused.
  expect([w.seen.batches, w.failed.size]).toEqual([[500], 700]);
  await expect(w.bulk.run("org", {})).rejects.toMatchObject({
    code: "retry_in_progress",
    status: 409,
  });
  // Another organization is not held up by it.
  expect(await w.bulk.run("other-org", {})).toBe(0);
  w.goOn();
  await w.parked();
  expect([w.seen.batches, w.failed.size]).toEqual([[500, 500], 200]);
  w.goOn();
  expect(await running).toBe(1_200);
  expect([w.seen.batches, w.seen.reopened, w.failed.size]).toEqual([[500, 500, 200], 1_200, 0]);
  // Done: the organization may run again; nothing is left to requeue.
  const again = w.bulk.run("org", {});
  await w.parked();
  w.goOn();
  await w.parked();
  w.goOn();
  expect(await again).toBe(0);
});
