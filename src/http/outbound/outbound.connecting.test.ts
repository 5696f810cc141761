import { afterEach, describe, expect, test } from "bun:test";
import { type BlackHole, openDescriptors, startBlackHole } from "../../test-utils/black-hole.ts";
import { pollUntil } from "../../test-utils/poll.ts";
import type { ConnectingLimits } from "./outbound.connecting.ts";
import type { OutboundResult } from "./outbound.model.ts";
import { createOutboundPolicy } from "./outbound.policy.ts";
import { createOutboundSender } from "./outbound.sender.ts";

// Connects that never complete (black-hole.child.ts): Bun.connect cannot cancel them, so each
// holds a descriptor past its send's deadline; these show the cap on them and that they go.
const DEADLINE_MS = 300;
const open = createOutboundPolicy({ deny: [], allow: [] });
const senderWith = (connecting: Partial<ConnectingLimits>) =>
  createOutboundSender({ policy: open, timeoutMs: DEADLINE_MS, connecting });

const holes: BlackHole[] = [];
async function blackHole(): Promise<BlackHole> {
  const hole = await startBlackHole();
  holes.push(hole);
  return hole;
}
afterEach(() => {
  for (const hole of holes.splice(0)) hole.stop();
});

const outcome = (result: OutboundResult) => [result.error?.type, result.error?.code];
const sendAll = (send: () => Promise<OutboundResult>, count: number) =>
  Promise.all(Array.from({ length: count }, send));

describe("connects that never complete", () => {
  test("past the cap per origin a send fails at once, opening no socket; the descriptors come back", async () => {
    const hole = await blackHole();
    const sender = senderWith({ perOrigin: 3, total: 100 });
    const send = () => sender.send({ url: `${hole.url}/hook`, method: "POST", body: "x" });
    const before = openDescriptors();

    const timedOut = await sendAll(send, 3);
    expect(timedOut.map(outcome)).toEqual(Array(3).fill(["network_error", "timeout"]));
    // The sends ended, their connects did not: three descriptors are still held.
    const held = openDescriptors();
    expect(held).toBeGreaterThanOrEqual(before + 3);

    const refused = await sendAll(send, 20);
    for (const result of refused) {
      expect(outcome(result)).toEqual(["network_error", "timeout"]);
      expect(result.error?.message).toContain("earlier connects to http://127.0.0.1");
      expect(result.error?.message).toContain("still pending");
      expect(result.latencyMs).toBeLessThan(DEADLINE_MS);
    }
    expect(openDescriptors()).toBeLessThan(held + 20);

    // The address starts refusing: the pending connects fail, their descriptors and slots go.
    await hole.close();
    await pollUntil(() => openDescriptors() <= before, { timeoutMs: 15_000, what: "fds back" });
    const after = await send();
    expect(outcome(after)).toEqual(["network_error", "connection_refused"]);
  }, 20_000);

  test("in all: hanging origins stop at half the cap, every origin at the cap", async () => {
    const healthy = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("ok") });
    try {
      const [first, second, third] = await Promise.all([blackHole(), blackHole(), blackHole()]);
      const sender = senderWith({ perOrigin: 5, total: 4 });
      const send = (base: string) => () => sender.send({ url: `${base}/hook`, method: "GET" });
      const healthyUrl = `http://127.0.0.1:${healthy.port}`;

      await sendAll(send(first.url), 2);
      const refused = await send(first.url)();
      expect(outcome(refused)).toEqual(["network_error", "timeout"]);
      expect(refused.error?.message).toContain("2 abandoned outbound connects still pending");
      expect(refused.latencyMs).toBeLessThan(DEADLINE_MS);

      // An origin that answers has no hanging connects: a burst of fresh connects goes through.
      const burst = await sendAll(send(healthyUrl), 40);
      expect(burst.map((result) => result.status)).toEqual(Array(40).fill(200));

      // Origins not known to hang still get their connects, up to the cap in all.
      await Promise.all([send(second.url)(), send(third.url)()]);
      const atCap = await sender.send({ url: `http://localhost:${healthy.port}/x`, method: "GET" });
      expect(atCap.error?.message).toContain("4 abandoned outbound connects still pending, 0 to");

      // The hanging connects fail once their addresses refuse: the cap is free again.
      await Promise.all([first.close(), second.close(), third.close()]);
      await pollUntil(
        async () => {
          const again = await sender.send({
            url: `http://localhost:${healthy.port}/x`,
            method: "GET",
          });
          return again.status === 200;
        },
        { timeoutMs: 15_000, intervalMs: 200, what: "connects allowed again" },
      );
    } finally {
      healthy.stop(true);
    }
  }, 20_000);

  test("a connect that completes after its send gave up is closed at once", async () => {
    const hole = await blackHole();
    const sender = senderWith({ perOrigin: 8, total: 100 });
    const before = openDescriptors();
    const timedOut = await sendAll(
      () => sender.send({ url: `${hole.url}/late`, method: "GET" }),
      3,
    );
    expect(timedOut.map(outcome)).toEqual(Array(3).fill(["network_error", "timeout"]));

    await hole.accept();
    const stats = await pollUntil(
      async () => {
        const now = await hole.stats();
        return now.accepted >= 3 && now.peerClosed === now.accepted && now;
      },
      { timeoutMs: 15_000, what: "the late connections to be accepted and closed by the sender" },
    );
    expect(stats).toEqual({ accepted: 3, peerClosed: 3 });
    await pollUntil(() => openDescriptors() <= before, { what: "fds back" });
  }, 20_000);
});
