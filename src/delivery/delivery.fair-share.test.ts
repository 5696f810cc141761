import { afterEach, expect, test } from "bun:test";
import { startHeldSink } from "../test-utils/held-sink.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { startOutboxAlone } from "../test-utils/outbox.ts";
import { pollUntil } from "../test-utils/poll.ts";
import type { NewDelivery } from "./delivery.ports.ts";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/**
 * The outbox with 16 slots, 4 per destination; deliveries whose subject starts with "slow" go
 * to a destination that answers only when released, the others to one that answers at once.
 */
async function sharedOutbox() {
  const slow = startHeldSink();
  const fast = startHttpSink();
  const box = await startOutboxAlone({
    dirPrefix: "weir-fair-share-",
    config: { delivery_concurrency: 16, delivery_per_destination: 4 },
    urlOf: (subjectId) => `${subjectId.startsWith("slow") ? slow.url : fast.url}/${subjectId}`,
  });
  cleanup.push(async () => {
    await fast.stop();
    await slow.stop();
  });
  cleanup.push(box.stop);
  cleanup.push(() => slow.release());
  const enqueue = (items: NewDelivery[]) => {
    box.deps.db.tx((tx) => box.ports.enqueue(tx, items));
    box.ports.wake();
  };
  return { slow, fast, enqueue, leased: box.leased, clock: box.clock, scheduler: box.scheduler };
}

const delivery = (organizationId: string, subjectId: string, destinationKey: string) => ({
  kind: "event" as const,
  organizationId,
  subjectId,
  destinationKey,
  maxRetries: 0,
});

test("an organization whose slow destinations hold every slot does not delay another's delivery", async () => {
  const box = await sharedOutbox();
  // Organization A: four destinations that never answer (until released), ten deliveries each.
  box.enqueue(Array.from({ length: 40 }, (_, i) => delivery("org-a", `slow-${i}`, `a-${i % 4}`)));
  // Alone, A uses every slot: four destinations at their limit of four.
  await pollUntil(() => box.slow.held() === 16, { timeoutMs: 5_000 });
  // Organization B's delivery to a fast destination goes out at once, not when A's answers come.
  box.enqueue([delivery("org-b", "quick", "b-1")]);
  await pollUntil(() => box.fast.requests.length === 1, { timeoutMs: 2_000 });
  expect(box.fast.requests[0]?.path).toBe("/quick");
  expect(box.slow.held()).toBe(16);
});

test("an organization that starts while every slot is taken gets its part past the limit, no more", async () => {
  const box = await sharedOutbox();
  box.enqueue(Array.from({ length: 40 }, (_, i) => delivery("org-a", `slow-a-${i}`, `a-${i % 4}`)));
  await pollUntil(() => box.slow.held() === 16, { timeoutMs: 5_000 });
  // B is slow too: half of the 16 slots is its part, taken at once although A holds them all.
  box.enqueue(Array.from({ length: 40 }, (_, i) => delivery("org-b", `slow-b-${i}`, `b-${i % 4}`)));
  await pollUntil(() => box.slow.held() === 24, { timeoutMs: 5_000 });
  // Another claim takes nothing more: both organizations are at (or past) their parts.
  box.enqueue([delivery("org-b", "slow-b-late", "b-0"), delivery("org-a", "slow-a-late", "a-0")]);
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  expect(box.leased()).toBe(24);
});

test("a delivery of another organization that comes due later is found by the next poll, though every slot is taken", async () => {
  const box = await sharedOutbox();
  box.enqueue(Array.from({ length: 40 }, (_, i) => delivery("org-a", `slow-${i}`, `a-${i % 4}`)));
  await pollUntil(() => box.slow.held() === 16, { timeoutMs: 5_000 });
  // Due in 20 s (as a retry would be; within the leases of A's rows): nothing is claimed now.
  box.enqueue([{ ...delivery("org-b", "later", "b-1"), dueAt: box.clock.now() + 20_000 }]);
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  expect(box.fast.requests).toHaveLength(0);
  box.clock.advance(20_000);
  await box.scheduler.run("delivery.poll");
  await pollUntil(() => box.fast.requests.length === 1, { timeoutMs: 2_000 });
  expect(box.slow.held()).toBe(16);
});
