#!/usr/bin/env bun
/**
 * How fast a request list answers with `q`, `method` and `since` on an endpoint holding 100,000
 * captures (plus 100,000 on a neighbour, which the index also holds), against the unfiltered
 * first page in the same run. Usage: bun scripts/bench/search-100k.ts [--rows 100000]
 */
import { createCaptureSqliteStore } from "../../src/capture/capture.sqlite.ts";
import { parseRequestFilter } from "../../src/capture/request-filter.model.ts";
import { listRequests } from "../../src/capture/requests.service.ts";
import { parsePageRequest } from "../../src/db/db.pagination.ts";
import { insertEndpoint, insertOrganization } from "../../src/test-utils/requests-fixtures.ts";
import { createTestDb } from "../../src/test-utils/test-db.ts";

const rowsArg = process.argv.indexOf("--rows");
const ROWS = rowsArg > 0 ? Number(process.argv[rowsArg + 1]) : 100_000;
const db = createTestDb();
insertOrganization(db, "org");
insertEndpoint(db, { id: "ep", organizationId: "org" });
insertEndpoint(db, { id: "neighbour", organizationId: "org" });

const headers = JSON.stringify([
  ["content-type", "application/json"],
  ["user-agent", "Stripe/1.0 (+https://stripe.com/docs/webhooks)"],
  [
    "stripe-signature",
    "t=1492774577,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd",
  ],
]);
const insert = db.sqlite.prepare(
  `INSERT INTO captured_requests (id, endpoint_id, method, path, query_string, raw_headers,
   body, content_type, size, remote_ip, status, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,200,?)`,
);
const started = performance.now();
const fill = db.sqlite.transaction((endpointId: string, from: number, to: number) => {
  for (let i = from; i < to; i++) {
    const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
    const type = ["invoice.paid", "invoice.created", "customer.updated", "charge.refunded"][i % 4];
    const body = Buffer.from(
      JSON.stringify({
        id: `evt_${endpointId}_${i}`,
        type,
        data: {
          object: {
            id: `in_${i.toString(36)}`,
            amount: (i * 37) % 10_000,
            customer: `cus_${(i % 997).toString(36)}`,
          },
        },
      }).padEnd(1024, " "),
    );
    const id = `${endpointId}-${String(i).padStart(8, "0")}`;
    insert.run(
      id,
      endpointId,
      i % 10 === 0 ? "PUT" : "POST",
      "/stripe",
      "",
      headers,
      body,
      "application/json",
      body.length,
      "10.0.0.1",
      at,
    );
  }
});
for (const endpointId of ["ep", "neighbour"]) {
  for (let from = 0; from < ROWS; from += 5_000)
    fill(endpointId, from, Math.min(ROWS, from + 5_000));
  // Written around capture, so counted by hand as capture counts its own.
  db.sqlite.run("UPDATE debug_endpoints SET request_count = ? WHERE id = ?", [ROWS, endpointId]);
}
console.log(`filled ${2 * ROWS} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);

const store = createCaptureSqliteStore(db);
async function time(query: Record<string, string>): Promise<{ ms: number; total: number }> {
  const page = parsePageRequest({ page_size: "100" });
  const filter = parseRequestFilter(query);
  const runs: number[] = [];
  let total = 0;
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    total = (await listRequests({ endpointId: "ep", page, filter }, { requests: store })).info
      .total;
    runs.push(performance.now() - t0);
  }
  runs.sort((a, b) => a - b);
  return { ms: runs[3] ?? 0, total };
}

await time({});
const baseline = await time({});
console.log(`\nendpoint of ${ROWS.toLocaleString()} requests; median of 7, first page of 100`);
console.log(
  `${"query".padEnd(44)} ${"ms".padStart(8)} ${"matches".padStart(8)}  ratio to unfiltered`,
);
for (const [label, query] of [
  ["unfiltered (baseline)", {}],
  ["q=evt_ep_99999 (one request)", { q: `evt_ep_${ROWS - 1}` }],
  ["q=cus_1a (a customer: ~0.1 %)", { q: "cus_1a" }],
  ["q=charge.refunded (25 %)", { q: "charge.refunded" }],
  ["q=stripe (every request)", { q: "stripe" }],
  ["q={} (no word: scanned)", { q: '"id"' }],
  ["method=PUT (10 %)", { method: "PUT" }],
  [
    "since: the last hour",
    { since: new Date(Date.UTC(2026, 0, 1) + (ROWS - 3600) * 1000).toISOString() },
  ],
] as const) {
  const result = await time(query);
  console.log(
    `${label.padEnd(44)} ${result.ms.toFixed(2).padStart(8)} ${String(result.total).padStart(8)}  ${(result.ms / baseline.ms).toFixed(1)}x`,
  );
}
db.destroy();
