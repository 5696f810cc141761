import { afterAll, describe, expect, test } from "bun:test";
import { createOutboundPolicy } from "../http/outbound/outbound.policy.ts";
import { createOutboundSender } from "../http/outbound/outbound.sender.ts";
import { signUp } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { MONITORS_PATH } from "../test-utils/monitors.ts";
import { startTestServer } from "../test-utils/test-server.ts";

// tcp checks obey the outbound address policy as http checks do: refused when saved, and again
// when the name is resolved at check time (a name may point somewhere else later).
let connections = 0;
const listener = Bun.listen({
  hostname: "127.0.0.1",
  port: 0,
  socket: {
    open(socket) {
      connections += 1;
      socket.end();
    },
    data() {},
  },
});
afterAll(() => listener.stop(true));

const DENY = { outbound_deny: ["127.0.0.0/8"] };

describe("outbound policy of tcp checks", () => {
  test("a tcp monitor to a denied address is refused when saved: 422 naming url", async () => {
    const server = await startTestServer({ config: DENY });
    try {
      const owner = await signUp(server);
      const answer = await callAs(server, owner, "POST", MONITORS_PATH, {
        name: "db",
        type: "tcp",
        url: `tcp://localhost:${listener.port}`,
      });
      expect(answer.status).toBe(422);
      expect(answer.body.errors.url[0]).toContain("denied by the outbound address policy");
    } finally {
      await server.stop();
    }
  });

  test("at check time the resolved address is judged again: down with blocked_address, nothing connects", async () => {
    // The save-time half passes here (its sender allows all), so only the check's own judgement
    // of the resolved address stands between the monitor and the denied address.
    const lenient = createOutboundSender({
      policy: createOutboundPolicy({ deny: [], allow: [] }),
      timeoutMs: 5000,
    });
    const server = await startTestServer({ config: DENY, outbound: lenient });
    try {
      const owner = await signUp(server);
      const created = await callAs(server, owner, "POST", MONITORS_PATH, {
        name: "db",
        type: "tcp",
        url: `tcp://localhost:${listener.port}`,
        paused: true,
      });
      expect(created.status).toBe(201);
      const check = await callAs(
        server,
        owner,
        "POST",
        `${MONITORS_PATH}/${created.body.data.id}/check`,
      );
      expect(check.body.data.status).toBe("down");
      expect(check.body.data.error).toStartWith("blocked_address: ");
      expect(check.body.data.error).toContain("127.0.0.0/8");
      expect(connections).toBe(0);
    } finally {
      await server.stop();
    }
  });
});
