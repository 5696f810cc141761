import { createSocket } from "node:dgram";
import type { TestAccount } from "./accounts.ts";
import { apiCall } from "./api-call.ts";
import { pollUntil } from "./poll.ts";
import type { TestServer } from "./test-server.ts";

export const MONITORS_PATH = "/api/v1/uptime-monitors";

/** Creates a monitor as `account`; throws unless it was created. */
export async function createMonitorAs(
  server: TestServer,
  account: TestAccount,
  body: Record<string, unknown>,
) {
  const answer = await apiCall(server, "POST", MONITORS_PATH, { headers: account.headers, body });
  if (answer.status !== 201)
    throw new Error(`create: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.data as { id: string; push_url?: string } & Record<string, unknown>;
}

/** Reads the monitor until `accept` holds for it. */
export function monitorWhen(
  server: TestServer,
  account: TestAccount,
  id: string,
  accept: (monitor: Record<string, unknown>) => boolean,
  what = "the monitor's state",
) {
  return pollUntil(
    async () => {
      const answer = await apiCall(server, "GET", `${MONITORS_PATH}/${id}`, {
        headers: account.headers,
      });
      return accept(answer.body.data) ? answer.body.data : undefined;
    },
    { what, timeoutMs: 8000 },
  );
}

/** The monitor's checks, newest first. */
export async function checksOf(server: TestServer, account: TestAccount, id: string) {
  const answer = await apiCall(server, "GET", `${MONITORS_PATH}/${id}/checks?page_size=100`, {
    headers: account.headers,
  });
  return answer.body.data as Record<string, unknown>[];
}

export interface DnsRecords {
  A?: string[];
  TXT?: string[];
}

const TYPE_CODES = { A: 1, TXT: 16 } as const;

/**
 * A tiny DNS server on 127.0.0.1 (UDP) that answers A and TXT questions from `records` (by
 * name); unknown names get NXDOMAIN. Enough for dns monitors to be tested against a real socket.
 */
export async function startDnsResponder(records: Record<string, DnsRecords>) {
  const socket = createSocket("udp4");
  socket.on("message", (query, peer) => {
    let offset = 12;
    const labels: string[] = [];
    while (query[offset] !== 0) {
      const length = query[offset] as number;
      labels.push(query.subarray(offset + 1, offset + 1 + length).toString());
      offset += length + 1;
    }
    const questionEnd = offset + 5;
    const type = query.readUInt16BE(offset + 1);
    const name = labels.join(".");
    const known = records[name];
    const answers: Buffer[] = [];
    if (known && type === TYPE_CODES.A) {
      for (const ip of known.A ?? [])
        answers.push(answer(1, Buffer.from(ip.split(".").map(Number))));
    }
    if (known && type === TYPE_CODES.TXT) {
      for (const text of known.TXT ?? []) {
        answers.push(answer(16, Buffer.concat([Buffer.from([text.length]), Buffer.from(text)])));
      }
    }
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2);
    header.writeUInt16BE(known ? 0x8180 : 0x8183, 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    socket.send(
      Buffer.concat([header, query.subarray(12, questionEnd), ...answers]),
      peer.port,
      peer.address,
    );
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    stop: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

function answer(type: number, data: Buffer): Buffer {
  const fixed = Buffer.alloc(12);
  fixed.writeUInt16BE(0xc00c, 0);
  fixed.writeUInt16BE(type, 2);
  fixed.writeUInt16BE(1, 4);
  fixed.writeUInt32BE(60, 6);
  fixed.writeUInt16BE(data.length, 10);
  return Buffer.concat([fixed, data]);
}
