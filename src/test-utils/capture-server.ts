import { afterEach } from "bun:test";
import type { Plan } from "../auth/auth.model.ts";
import { createCapturePostgresStore } from "../capture/capture.postgres.ts";
import { createCaptureSqliteStore } from "../capture/capture.sqlite.ts";
import type { CaptureStore } from "../capture/capture.store.ts";
import {
  runIn,
  type SeededEndpoint,
  type StoredRow,
  seedEndpointIn,
  seedOrganizationIn,
  storedRequestsIn,
} from "./capture-fixtures.ts";
import { startTestServer, type TestServer, type TestServerOptions } from "./test-server.ts";

export const ORG_ID = "org-capture";

/** A test server with an organization to own endpoints, and helpers to make endpoints and read what was stored. */
export interface CaptureServer extends TestServer {
  /** Seeds an endpoint (active, of ORG_ID unless told otherwise); returns its row's fields. */
  endpoint(fields?: Partial<SeededEndpoint>): Promise<SeededEndpoint>;
  /** Rows stored for an endpoint, oldest first. */
  stored(endpointId: string): Promise<StoredRow[]>;
  /** The capture store over the server's database: reads as the app makes them. */
  captureStore(): CaptureStore;
  /** Runs a statement (`?` placeholders) on the server's database, SQLite or PostgreSQL. */
  run(statement: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
}

let endpoints = 0;

/** Starts a capture-ready server: real HTTP, real SQLite or PostgreSQL (WEIR_TEST_STORE); its organization is on `plan` (default team). */
export async function startCaptureServer(
  options: TestServerOptions & { plan?: Plan } = {},
): Promise<CaptureServer> {
  const server = await startTestServer(options);
  await seedOrganizationIn(server, ORG_ID, options.plan ?? "team");
  return Object.assign(server, {
    async endpoint(fields: Partial<SeededEndpoint> = {}) {
      endpoints += 1;
      const seeded: SeededEndpoint = {
        id: `endpoint-${endpoints}`,
        slug: `hook-${endpoints}`,
        organizationId: ORG_ID,
        ...fields,
      };
      await seedEndpointIn(server, seeded);
      return seeded;
    },
    stored: (endpointId: string) => storedRequestsIn(server, endpointId),
    captureStore: () => captureStoreOf(server),
    run: (statement: string, params: unknown[] = []) => runIn(server, statement, params),
  });
}

/** The capture store over a test server's database, SQLite or PostgreSQL: reads as the app makes them. */
export function captureStoreOf(server: TestServer): CaptureStore {
  return server.postgres
    ? createCapturePostgresStore(server.postgres)
    : createCaptureSqliteStore(server.deps.db);
}

/** For a test file: servers started through the returned function are stopped after each test. */
export function useCaptureServers(): (
  options?: Parameters<typeof startCaptureServer>[0],
) => Promise<CaptureServer> {
  const running: TestServer[] = [];
  afterEach(async () => {
    for (const server of running.splice(0)) await server.stop();
  });
  return async (options) => {
    const server = await startCaptureServer(options);
    running.push(server);
    return server;
  };
}

/** Bytes of a response or stored body, for exact comparisons. */
export function bytesOf(value: Uint8Array | ArrayBuffer): number[] {
  return Array.from(value instanceof ArrayBuffer ? new Uint8Array(value) : value);
}

/** What came back on a raw connection: status and the text after the headers. */
export interface RawAnswer {
  status: number;
  head: string;
  body: string;
}

/**
 * Writes `parts` on a plain TCP connection (a request the fetch client cannot make: a body that
 * never ends, a lying Content-Length) and resolves with the first response, or rejects after
 * `timeoutMs`. The connection is closed either way.
 */
export function rawExchange(port: number, parts: Array<string | Uint8Array>, timeoutMs = 5000) {
  return new Promise<RawAnswer>((resolve, reject) => {
    let received = "";
    const timer = setTimeout(
      () => reject(new Error(`no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const settle = (socket: { end(): void }) => {
      const headEnd = received.indexOf("\r\n\r\n");
      if (headEnd < 0) return;
      const head = received.slice(0, headEnd);
      const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      const body = received.slice(headEnd + 4);
      if (body.length < length) return;
      clearTimeout(timer);
      socket.end();
      resolve({ status: Number(head.split(" ")[1]), head, body: body.slice(0, length) });
    };
    Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(socket) {
          for (const part of parts) socket.write(part);
        },
        data(socket, data) {
          received += new TextDecoder().decode(data);
          settle(socket);
        },
        error(_, error) {
          clearTimeout(timer);
          reject(error);
        },
      },
    }).catch(reject);
  });
}
