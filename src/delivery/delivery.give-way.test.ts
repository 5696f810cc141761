import { afterEach, expect, test } from "bun:test";
import { type HeldSink, startHeldSink } from "../test-utils/held-sink.ts";
import { startOutboxAlone } from "../test-utils/outbox.ts";
import { pollUntil } from "../test-utils/poll.ts";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function heldSink(): HeldSink {
  const sink = startHeldSink();
  cleanup.push(() => sink.stop());
  return sink;
}

async function outbox(url: string, floor = 32) {
  const box = await startOutboxAlone({
    dirPrefix: "weir-give-way-",
    config: {
      delivery_concurrency: 64,
      delivery_per_destination: 64,
      delivery_give_way_floor: floor,
    },
    urlOf: (subjectId) => `${url}/${subjectId}`,
  });
  cleanup.push(box.stop);
  const { deps, ports, clock, leased } = box;
  const delivered = () =>
    deps.db.sqlite
      .query<{ n: number }, []>("SELECT count(*) AS n FROM deliveries WHERE status = 'delivered'")
      .get()?.n ?? 0;
  const enqueue = (count: number) => {
    deps.db.tx((tx) =>
      ports.enqueue(
        tx,
        Array.from({ length: count }, (_, i) => ({
          kind: "event" as const,
          organizationId: "org",
          subjectId: `e${i}`,
          destinationKey: "dest",
          maxRetries: 0,
        })),
      ),
    );
    ports.wake();
  };
  return { ports, clock, leased, delivered, enqueue };
}

/** Lets the held answers go until `count` deliveries have ended delivered. */
async function releaseUntilDelivered(
  sink: HeldSink,
  box: Awaited<ReturnType<typeof outbox>>,
  count: number,
): Promise<void> {
  await pollUntil(
    () => {
      sink.release();
      return box.delivered() === count;
    },
    { timeoutMs: 10_000 },
  );
}

test("while ingest batches are full, deliveries keep to the floor; the full concurrency returns when the burst ends", async () => {
  const sink = heldSink();
  const box = await outbox(sink.url);
  // A burst: every ingest commit held 64 requests (the floor is 32 of the 64 allowed).
  for (let i = 0; i < 6; i++) box.ports.ingestCommitted(64);
  box.enqueue(100);
  await pollUntil(() => sink.held() === 32, { timeoutMs: 10_000 });
  // Another wake claims nothing more while the pressure lasts.
  box.ports.wake();
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  expect(box.leased()).toBe(32);
  // The burst ended: 100 ms without an ingest batch, and the next claim takes the full 64.
  box.clock.advance(101);
  box.ports.wake();
  await pollUntil(() => sink.held() === 64, { timeoutMs: 10_000 });
  expect(box.leased()).toBe(64);
  // Everything still arrives.
  await releaseUntilDelivered(sink, box, 100);
});

test("by default (floor 0) nothing gives way, however full the batches", async () => {
  const sink = heldSink();
  const box = await outbox(sink.url, 0);
  for (let i = 0; i < 6; i++) box.ports.ingestCommitted(64);
  box.enqueue(100);
  await pollUntil(() => sink.held() === 64, { timeoutMs: 10_000 });
  expect(box.leased()).toBe(64);
  await releaseUntilDelivered(sink, box, 100);
});

test("at a moderate rate (batches of one or two) nothing gives way", async () => {
  const sink = heldSink();
  const box = await outbox(sink.url);
  for (let i = 0; i < 20; i++) box.ports.ingestCommitted(i % 2 === 0 ? 1 : 2);
  box.enqueue(100);
  await pollUntil(() => sink.held() === 64, { timeoutMs: 10_000 });
  expect(box.leased()).toBe(64);
  await releaseUntilDelivered(sink, box, 100);
});
