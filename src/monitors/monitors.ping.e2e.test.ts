import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { signUp } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { MONITORS_PATH } from "../test-utils/monitors.ts";
import { makeTempDir } from "../test-utils/temp-dir.ts";
import { startTestServer } from "../test-utils/test-server.ts";
import { registerOperator, startWeirProcess } from "../test-utils/weir-process.ts";
import { roundTripMs } from "./monitors.ping.ts";

/**
 * A stand-in `ping` on the PATH of a real `weir serve`: it records its arguments and answers as
 * iputils does for 127.0.0.1 (a reply), 10.9.9.9 (no ICMP socket allowed) and anything else
 * (no reply). Whether the host itself may send ICMP does not matter to it.
 */
const FAKE_PING = (argsFile: string) => `#!/bin/sh
echo "$@" >> "${argsFile}"
case "$5" in
  127.0.0.1)
    echo "PING 127.0.0.1 (127.0.0.1) 56(84) bytes of data."
    echo "64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=3.21 ms"
    exit 0;;
  10.9.9.9)
    echo "ping: socket: Operation not permitted" >&2
    exit 2;;
  *)
    echo "1 packets transmitted, 0 received, 100% packet loss, time 0ms"
    exit 1;;
esac
`;

const dir = makeTempDir("weir-ping-");
const bin = join(dir.path, "bin");
const argsFile = join(dir.path, "ping-args");
const running: Subprocess[] = [];
let url: string;
let headers: Record<string, string>;

beforeAll(async () => {
  Bun.spawnSync(["mkdir", "-p", bin]);
  writeFileSync(join(bin, "ping"), FAKE_PING(argsFile));
  chmodSync(join(bin, "ping"), 0o755);
  const weir = await startWeirProcess(join(dir.path, "data"), { PATH: bin }, running);
  url = weir.url;
  headers = {
    authorization: `Bearer ${await registerOperator(url)}`,
    "content-type": "application/json",
  };
});
afterAll(async () => {
  for (const proc of running) proc.kill();
  await Promise.all(running.map((proc) => proc.exited));
  dir.remove();
});

const api = async (method: string, path: string, body?: unknown) => {
  const answer = await fetch(`${url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return {
    status: answer.status,
    body: (await answer.json()) as Record<string, unknown> & { errors?: object },
  };
};
const pingMonitor = async (hostname: string) => {
  const created = await api("POST", MONITORS_PATH, {
    name: hostname,
    type: "ping",
    hostname,
    timeout_seconds: 2,
    interval_seconds: 3600,
  });
  expect(created.status).toBe(201);
  return created.body.data as { id: string; hostname: string };
};
const checkNow = async (id: string) => {
  const answer = await api("POST", `${MONITORS_PATH}/${id}/check`);
  expect(answer.status).toBe(200);
  return answer.body.data as { status: string; error: string | null; response_time_ms: number };
};

describe("ping checks through the host's ping program", () => {
  test("a reply is up with ping's round trip; ping gets an argument array, never a shell", async () => {
    const monitor = await pingMonitor("127.0.0.1");
    expect(monitor.hostname).toBe("127.0.0.1");
    expect(await checkNow(monitor.id)).toMatchObject({
      status: "up",
      response_time_ms: 3,
      error: null,
    });
    expect(readFileSync(argsFile, "utf8")).toContain("-c 1 -W 2 127.0.0.1\n");
  });

  test("no reply is down; a ping without its socket, or no ping at all, says ping is not available", async () => {
    const silent = await pingMonitor("192.0.2.1");
    expect(await checkNow(silent.id)).toMatchObject({
      status: "down",
      error: "no reply from 192.0.2.1 within 2 s",
    });
    const forbidden = await pingMonitor("10.9.9.9");
    expect(await checkNow(forbidden.id)).toMatchObject({
      status: "down",
      error: "ping is not available on this host: ping: socket: Operation not permitted",
    });

    rmSync(join(bin, "ping"));
    const absent = await pingMonitor("127.0.0.1");
    expect(await checkNow(absent.id)).toMatchObject({
      status: "down",
      error: "ping is not available on this host",
    });
  });

  test("the hostname is checked strictly and against the address policy: 422 naming it", async () => {
    for (const hostname of ["-f", "host name", "a;reboot", "", "169.254.169.254"]) {
      const answer = await api("POST", MONITORS_PATH, { name: "bad", type: "ping", hostname });
      expect([hostname, answer.status, Object.keys(answer.body.errors ?? {})]).toEqual([
        hostname,
        422,
        ["hostname"],
      ]);
    }
  });

  test("round trips are read from iputils and busybox output", () => {
    expect(roundTripMs("64 bytes from 10.0.0.1: seq=0 ttl=64 time=12.6 ms")).toBe(13);
    expect(roundTripMs("round-trip min/avg/max = 0.1/4.4/9.0 ms")).toBe(4);
    expect(roundTripMs("no numbers")).toBeNull();
  });
});

const realPing = Bun.which("ping");
const icmpAllowed =
  realPing !== null &&
  Bun.spawnSync([realPing, "-c", "1", "-W", "1", "127.0.0.1"], {
    stdout: "ignore",
    stderr: "ignore",
  }).exitCode === 0;

describe("ping checks with the real ping", () => {
  // Skipped where the host has no ping program or its sandbox forbids ICMP.
  test.skipIf(!icmpAllowed)("127.0.0.1 answers: up (needs ping and ICMP on the host)", async () => {
    const server = await startTestServer();
    try {
      const owner = await signUp(server);
      const created = await callAs(server, owner, "POST", MONITORS_PATH, {
        name: "loopback",
        type: "ping",
        hostname: "127.0.0.1",
        timeout_seconds: 2,
        interval_seconds: 3600,
      });
      const check = await callAs(
        server,
        owner,
        "POST",
        `${MONITORS_PATH}/${created.body.data.id}/check`,
      );
      expect(check.body.data).toMatchObject({ status: "up", error: null });
      expect(typeof check.body.data.response_time_ms).toBe("number");
    } finally {
      await server.stop();
    }
  });
});
