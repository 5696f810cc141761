/**
 * The outbound sender as it was before its own HTTP/1.1 client: node:http(s) with a keep-alive
 * agent, the policy's `lookup` hook and a capped body read. Kept only as the baseline of
 * `scripts/bench/outbound-sender.ts`, so the replacement is measured against it in the same run.
 */
import { lookup as dnsLookup } from "node:dns/promises";
import * as http from "node:http";
import type { LookupFunction } from "node:net";
import { wireHeaders } from "../../../src/http/outbound/outbound.headers.ts";
import type { OutboundPolicy } from "../../../src/http/outbound/outbound.policy.ts";

const BODY_LIMIT = 65_536;

/** Sends one request as the node:http sender did; resolves with the status (null on failure). */
export function createNodeHttpSend(policy: OutboundPolicy, timeoutMs: number) {
  const agent = new http.Agent({ keepAlive: true });
  const lookup = checkedLookup(policy);
  return (url: string, method: string, headers: [string, string][], body: Uint8Array) => {
    const target = new URL(url);
    if (!policy.checkUrl(target.href).allowed) return Promise.resolve(null);
    return new Promise<number | null>((resolve) => {
      const req = http.request({
        hostname: target.hostname,
        port: target.port || undefined,
        path: `${target.pathname}${target.search}`,
        method,
        headers: wireHeaders(target, method, headers, body.byteLength).flat(),
        lookup,
        agent,
      });
      const deadline = setTimeout(() => req.destroy(new Error("timeout")), timeoutMs);
      req.on("error", () => {
        clearTimeout(deadline);
        resolve(null);
      });
      req.on("response", (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.byteLength;
          if (size > BODY_LIMIT) response.destroy();
        });
        response.on("end", () => {
          clearTimeout(deadline);
          new Uint8Array(Buffer.concat(chunks).subarray(0, BODY_LIMIT));
          resolve(response.statusCode ?? null);
        });
      });
      req.end(body.byteLength > 0 ? body : undefined);
    });
  };
}

function checkedLookup(policy: OutboundPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, verbatim: true })
      .then((addresses) => {
        for (const { address } of addresses) {
          if (!policy.checkAddress(address).allowed) throw new Error("blocked");
        }
        const first = addresses[0] as { address: string; family: number };
        if (options.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, "", 0));
  };
}
