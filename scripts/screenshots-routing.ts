/**
 * The routing, events, issues and alerts screens for scripts/screenshots.ts: a shop's orders
 * bridged to a fulfilment API (delivered), a legacy ERP that is down (failed, an issue), and a
 * warehouse waiting for its next retry (pending), all against a local sink.
 */
import type { Page } from "playwright-core";
import type { UiWorld } from "../src/test-utils/browser-world.ts";
import { startHttpSink } from "../src/test-utils/http-sink.ts";

const WAIT = { timeout: 15_000 };

type Shoot = (page: Page, name: string) => Promise<void>;

/** An API call as the logged-in UI makes it (its session cookie, same origin). */
async function api(
  page: Page,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ data: { id: string; source_id: string } }> {
  const answer = await page.evaluate(
    async ([m, p, b]) => {
      const response = await fetch(p as string, {
        method: m as string,
        headers: { "content-type": "application/json", "x-weir-ui": "1" },
        body: b === undefined ? undefined : JSON.stringify(b),
      });
      return { status: response.status, text: await response.text() };
    },
    [method, path, body] as const,
  );
  if (answer.status >= 300)
    throw new Error(`${method} ${path} answered ${answer.status}: ${answer.text}`);
  return JSON.parse(answer.text || "null");
}

const ORDERS = [
  { type: "order.created", order_id: "A-1001", total: 59.97, currency: "EUR" },
  { type: "order.created", order_id: "A-1002", total: 12.5, currency: "EUR" },
  { type: "order.updated", order_id: "A-1001", status: "packed" },
  { type: "order.cancelled", order_id: "A-0998", reason: "customer request" },
  { type: "order.created", order_id: "A-1003", total: 240, currency: "EUR" },
];

async function seed(page: Page, sinkUrl: string) {
  await api(page, "POST", "/api/v1/secrets", { name: "FULFILMENT_TOKEN", value: "ff-7c1e0a34" });
  const shop = await api(page, "POST", "/api/v1/bridges", {
    name: "Shop orders → fulfilment",
    source: { name: "Shop orders", type: "webhook" },
    destinations: [
      {
        name: "Fulfilment API",
        type: "http",
        url: `${sinkUrl}/fulfilment`,
        headers: { Authorization: "Bearer {{FULFILMENT_TOKEN}}" },
        filters: [{ "body.type": "order.created" }],
      },
      {
        name: "Legacy ERP",
        type: "http",
        url: `${sinkUrl}/down/erp`,
        max_retries: 0,
        filters: [{ "body.type": "order.cancelled" }],
      },
    ],
  });
  const sourceId = shop.data.source_id as string;
  const warehouse = await api(page, "POST", "/api/v1/bridges", {
    name: "Stock → warehouse",
    source: { name: "Stock levels", type: "webhook" },
    destinations: [
      { name: "Warehouse", type: "http", url: `${sinkUrl}/down/warehouse`, max_retries: 8 },
    ],
  });
  await api(page, "POST", "/api/v1/sources", { name: "GitHub", type: "github" });
  await api(page, "POST", "/api/v1/transformations", {
    name: "Add a tag",
    code: 'addHandler("transform", (request) => ({ ...request, headers: { ...request.headers, "x-tag": "shop" } }));',
  });
  await api(page, "POST", "/api/v1/secrets", { name: "SLACK_URL", value: `${sinkUrl}/slack` });
  await api(page, "POST", "/api/v1/alert-rules", {
    name: "Ops chat",
    condition: { type: "issue_created" },
    channel: { type: "slack", webhook_url: "{{SLACK_URL}}" },
  });
  for (const order of ORDERS) {
    await api(page, "POST", `/api/v1/sources/${sourceId}/ingest`, order);
  }
  // After the orders: an update of an order is not its duplicate, but a retried delivery is.
  await api(page, "PATCH", `/api/v1/sources/${sourceId}`, {
    deduplication_config: { body_path: "body.order_id", ttl_seconds: 3600 },
  });
  await api(page, "POST", `/api/v1/sources/${warehouse.data.source_id}/ingest`, {
    sku: "B-2",
    on_hand: 14,
  });
  return { shopBridge: shop.data.id as string, sourceId };
}

/** Waits until the events list shows every status the screens show. */
async function settled(page: Page, world: UiWorld): Promise<void> {
  await page.goto(`${world.server.url}/events`);
  for (const state of [/Delivered/, /Failed/, /Filtered/, /Pending/]) {
    await page.getByRole("row", { name: state }).first().waitFor(WAIT);
  }
}

/** Sources, bridges, events, issues, alert rules, transformations and secrets. */
export async function routingScreens(world: UiWorld, page: Page, shoot: Shoot): Promise<void> {
  const sink = startHttpSink();
  sink.answer((r) =>
    r.path.startsWith("/down") ? { status: 503, body: "maintenance" } : { status: 200 },
  );
  try {
    const { shopBridge, sourceId } = await seed(page, sink.url);
    await settled(page, world);
    await page
      .getByText(/\d+ (ms|s)$/)
      .first()
      .waitFor(WAIT);
    await shoot(page, "events");

    await page
      .getByRole("row", { name: /Failed/ })
      .first()
      .getByRole("link")
      .click();
    await page.getByRole("heading", { name: /Event POST/ }).waitFor(WAIT);
    await page.getByText("maintenance").first().waitFor(WAIT);
    await shoot(page, "event");

    await page.goto(`${world.server.url}/sources`);
    await page.getByRole("row", { name: /GitHub/ }).waitFor(WAIT);
    await shoot(page, "sources");

    await page.goto(`${world.server.url}/sources/${sourceId}`);
    const check = page.getByRole("region", { name: "Would these two be duplicates?" });
    await check.getByText(/✖ Duplicates|✔ Not duplicates/).waitFor(WAIT);
    await check.getByLabel("Fill request A from").selectOption({ index: 5 });
    await check.getByLabel("Fill request B from").selectOption({ index: 3 });
    await check.getByText("✖ Duplicates", { exact: false }).waitFor(WAIT);
    await check.scrollIntoViewIfNeeded();
    await shoot(page, "source-dedup");

    await page.goto(`${world.server.url}/bridges`);
    await page.getByRole("row", { name: /Stock → warehouse/ }).waitFor(WAIT);
    await shoot(page, "bridges");

    await page.goto(`${world.server.url}/bridges/${shopBridge}`);
    await page.getByRole("button", { name: "Edit Fulfilment API" }).click();
    await page.getByText("✔ Filter is valid").waitFor(WAIT);
    await page.getByRole("button", { name: "Test against recent events" }).click();
    const results = page.getByRole("region", { name: "Filter test results" });
    await results.waitFor(WAIT);
    await results.scrollIntoViewIfNeeded();
    await shoot(page, "bridge-filter");

    await page.goto(`${world.server.url}/issues`);
    await page
      .getByRole("row", { name: /Legacy ERP/ })
      .first()
      .waitFor(WAIT);
    await shoot(page, "issues");
    await page
      .getByRole("row", { name: /Legacy ERP/ })
      .first()
      .getByRole("link")
      .first()
      .click();
    await page.getByText("maintenance").first().waitFor(WAIT);
    await shoot(page, "issue");

    await page.goto(`${world.server.url}/alert-rules`);
    await page.getByRole("row", { name: /Ops chat/ }).waitFor(WAIT);
    await shoot(page, "alert-rules");

    await page.goto(`${world.server.url}/transformations`);
    await page.getByText("Add a tag").first().waitFor(WAIT);
    await shoot(page, "transformations");

    await page.goto(`${world.server.url}/secrets`);
    await page.getByText("FULFILMENT_TOKEN").first().waitFor(WAIT);
    await shoot(page, "secrets");
  } finally {
    await sink.stop();
  }
}
