/**
 * Sources and bridges in chromium against a real server: create, see, change and delete each,
 * with destinations per type, the signing secret shown once, pause/resume and the filter editor.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { openScreen, watchPage } from "../test-utils/browser-checks.ts";
import {
  readClipboard,
  sidewaysOverflow,
  startUiWorld,
  type UiWorld,
} from "../test-utils/browser-world.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";

let world: UiWorld;
let owner: TestAccount;
const sink = startHttpSink();
let counter = 0;
const unique = (what: string) => `${what} ${++counter}-${Date.now() % 100_000}`;

beforeAll(async () => {
  world = await startUiWorld();
  owner = await signUp(world.server);
}, 60_000);

afterAll(async () => {
  await world?.stop();
  await sink.stop();
});

const watch = (page: Page) => watchPage(world, page);

const open = (page: Page, path: string, heading: string, as: TestAccount = owner) =>
  openScreen(world, page, as, path, heading);

describe("sources in chromium", () => {
  test("create a source, copy its ingest URL, set deduplication (a 422 at the field first), delete it", async () => {
    const page = await world.newPage();
    const clean = watch(page);
    const name = unique("Shop");
    await open(page, "/sources", "Sources");
    await page.getByLabel("Name").fill(name);
    await page.getByRole("button", { name: "Create source" }).click();
    const row = page.getByRole("row", { name: new RegExp(`${name}.*/in/.*Off`) });
    await row.waitFor();
    await row.getByRole("button", { name: `Copy ingest URL of ${name}` }).click();
    expect(await readClipboard(page)).toContain("/in/");

    await row.getByRole("link", { name }).click();
    await page.getByRole("heading", { name, exact: true }).waitFor();
    expect(await page.title()).toBe("Source · Weir");
    await page.getByText("0 requests · 0 duplicates dropped (0%)").waitFor();
    await page.getByLabel("Drop duplicates by").selectOption("body_path");
    await page.getByLabel("Field path").fill("order_id");
    await page.getByRole("button", { name: "Save deduplication" }).click();
    const path = page.getByLabel("Field path");
    await page.locator('input[name="body_path"][aria-invalid="true"]').waitFor();
    await page
      .getByText(/must start with/)
      .first()
      .waitFor();
    expect(await path.evaluate((el) => el.matches(":focus"))).toBe(true);
    await path.fill("body.order_id");
    await page.getByRole("button", { name: "Save deduplication" }).click();
    await page.getByRole("status").getByText("Deduplication saved").waitFor();
    const saved = await callAs(world.server, owner, "GET", "/api/v1/sources");
    const stored = (saved.body.data as { name: string; deduplication_config: unknown }[]).find(
      (s) => s.name === name,
    );
    expect(stored?.deduplication_config).toMatchObject({ body_path: "body.order_id" });

    await page.getByRole("button", { name: "Delete source" }).click();
    await page.getByRole("dialog", { name: `Delete source “${name}”?` }).waitFor();
    await page.getByRole("dialog").getByRole("button", { name: "Delete source" }).click();
    await page.getByRole("heading", { name: "Sources", exact: true }).waitFor();
    await page.getByRole("status").getByText(`Source “${name}” deleted`).waitFor();
    await page.getByRole("row", { name: new RegExp(name) }).waitFor({ state: "detached" });
    await clean();
  });

  test("a source typed github suggests GitHub verification; a secret is required (422 at the field), then unsigned webhooks are refused", async () => {
    const name = unique("Repo");
    const created = await callAs(world.server, owner, "POST", "/api/v1/sources", {
      name,
      type: "github",
    });
    const source = created.body.data as { id: string; ingest_url: string };
    const page = await world.newPage();
    const clean = watch(page);
    await open(page, `/sources/${source.id}`, name);
    await page.getByText(/This source's type is “github”.*Choose\s+GitHub/).waitFor();
    await page.getByLabel("Verify signatures of").selectOption("github");
    await page.getByRole("button", { name: "Save verification" }).click();
    await page.locator('input[name="secret"][aria-invalid="true"]').waitFor();
    const secret = page.getByLabel("Signing secret");
    expect(await secret.evaluate((el) => el.matches(":focus"))).toBe(true);
    await secret.fill("It's a Secret to Everybody");
    await page.getByRole("button", { name: "Save verification" }).click();
    await page.getByRole("status").getByText("Signature verification saved").waitFor();
    await page.getByText("A secret is set; leave empty to keep it.", { exact: false }).waitFor();
    expect(await page.content()).not.toContain("It's a Secret to Everybody");

    const read = await callAs(world.server, owner, "GET", `/api/v1/sources/${source.id}`);
    expect(read.body.data.verification).toEqual({ type: "github", secret_set: true });
    const unsigned = await fetch(source.ingest_url, { method: "POST", body: "{}" });
    expect([unsigned.status, await unsigned.json()]).toEqual([401, { error: "signature_invalid" }]);

    await page.getByLabel("Verify signatures of").selectOption("");
    await page.getByRole("button", { name: "Save verification" }).click();
    await page.getByRole("status").getByText("Signature verification saved").waitFor();
    const off = await callAs(world.server, owner, "GET", `/api/v1/sources/${source.id}`);
    expect(off.body.data.verification).toBeNull();
    await clean();
  });
  test("the dedup check answers for unsaved settings as they are edited, from typed requests or two recent events", async () => {
    const name = unique("Orders feed");
    const created = await callAs(world.server, owner, "POST", "/api/v1/sources", { name });
    const source = created.body.data as { id: string; ingest_url: string };
    const ingest = async (body: unknown) => {
      const answer = await fetch(source.ingest_url, { method: "POST", body: JSON.stringify(body) });
      return ((await answer.json()) as { event_id: string }).event_id;
    };
    const first = await ingest({ order: "o-1", attempt: 1 });
    const second = await ingest({ order: "o-1", attempt: 2 });
    const page = await world.newPage();
    const clean = watch(page);
    await open(page, `/sources/${source.id}`, name);
    const check = page.getByRole("region", { name: "Would these two be duplicates?" });
    await check.getByText("Deduplication is off: both requests would be kept.").waitFor();

    await page.getByLabel("Drop duplicates by").selectOption("body_path");
    await page.getByLabel("Field path").fill("order");
    await check.getByText(/settings\.body_path: .*must start with/).waitFor();
    await page.getByLabel("Field path").fill("body.id");
    await check
      .getByText("✖ Duplicates: B would be dropped if it came within 300 s of A.")
      .waitFor();
    const keyA = check.getByRole("listitem").filter({ hasText: "Key of A" });
    expect(await keyA.textContent()).toMatch(/[0-9a-f]{64}/);
    await check.getByLabel("Body of B").fill('{"id": "evt_2", "attempt": 2}');
    await check.getByText("✔ Not duplicates: both would be kept.").waitFor();

    // By order: A (no order) and B ("o-2") differ until both are filled from the two events.
    await page.getByLabel("Field path").fill("body.order");
    await check.getByLabel("Body of B").fill('{"order": "o-2"}');
    await check.getByText("Checking…").waitFor({ state: "detached" });
    await check.getByText("✔ Not duplicates: both would be kept.").waitFor();
    await check.getByLabel("Fill request A from").selectOption(first);
    await check.getByLabel("Fill request B from").selectOption(second);
    expect(await check.getByLabel("Body of B").inputValue()).toContain('"attempt":2');
    await check.getByText(/✖ Duplicates/).waitFor();
    // Nothing was saved: the check tried the draft only.
    const stored = await callAs(world.server, owner, "GET", `/api/v1/sources/${source.id}`);
    expect(stored.body.data.deduplication_config).toBeNull();
    await clean();

    // On a phone in the dark, the two requests and their 64-character keys fit the width.
    const phone = await world.newPage({ width: 375, height: 740, colorScheme: "dark" });
    const phoneClean = watch(phone);
    await open(phone, `/sources/${source.id}`, name);
    await phone.getByLabel("Drop duplicates by").selectOption("body_path");
    await phone.getByLabel("Field path").fill("body.id");
    await phone.getByText(/✖ Duplicates/).waitFor();
    expect(await sidewaysOverflow(phone)).toBe(0);
    await phoneClean();
  });
});

describe("bridges in chromium", () => {
  test("create a bridge, add an http destination (filter 422 inline), copy and rotate its secret, pause, resume, delete", async () => {
    const created = await callAs(world.server, owner, "POST", "/api/v1/secrets", {
      name: "SINK_TOKEN",
      value: "t0ken",
    });
    expect([201, 409]).toContain(created.status);
    const page = await world.newPage();
    const clean = watch(page);
    const name = unique("Orders");
    await open(page, "/bridges", "Bridges");
    await page.getByLabel("Name", { exact: true }).fill(name);
    await page.getByLabel("New source name").fill(unique("Orders source"));
    await page.getByRole("button", { name: "Create bridge" }).click();
    await page.getByRole("heading", { name, exact: true }).waitFor();
    await page.getByText("No destinations yet").waitFor();

    await page.getByRole("button", { name: "Add a destination" }).click();
    await page.getByLabel("Destination name").fill("Billing");
    await page.getByLabel("URL", { exact: true }).fill(`${sink.url}/billing`);
    await page.getByText("{{SINK_TOKEN}}").first().waitFor();
    await page.getByLabel("Headers").fill("Authorization: Bearer {{SINK_TOKEN}}");
    await page.getByLabel("Filters (JSON)").fill('[{"body.order_id": {"$regex": "(ord_"}}]');
    await page.getByRole("button", { name: "Add destination" }).click();
    await page.locator('textarea[name="filters"][aria-invalid="true"]').waitFor();
    await page.getByText(/filters\[0\]\.body\.order_id.*not a valid pattern/).waitFor();
    await page.getByLabel("Filters (JSON)").fill('[{"body.order_id": {"$startsWith": "ord_"}}]');
    await page.getByRole("button", { name: "Add destination" }).click();

    const shown = page.getByText(/Signing secret of Billing \(shown once\): whsec_/);
    await shown.waitFor();
    await page.getByRole("button", { name: "Copy signing secret" }).click();
    const first = await readClipboard(page);
    expect(first).toStartWith("whsec_");
    await page.getByRole("button", { name: "I have saved it" }).click();
    const card = page.getByRole("region", { name: "Destination Billing" });
    await card.getByText(`POST ${sink.url}/billing`).waitFor();
    await card.getByText("1 filter(s)").waitFor();

    await card.getByRole("button", { name: "Rotate signing secret of Billing" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Rotate secret" }).click();
    await shown.waitFor();
    await page.getByRole("button", { name: "Copy signing secret" }).click();
    const second = await readClipboard(page);
    expect(second).toStartWith("whsec_");
    expect(second).not.toBe(first);

    await page.getByRole("button", { name: "Pause bridge" }).click();
    await page.getByText("❚❚ Paused").waitFor();
    await page.getByRole("button", { name: "Resume bridge" }).click();
    await page.getByText("● Active").waitFor();

    const script = await callAs(world.server, owner, "POST", "/api/v1/transformations", {
      name: "Add a tag",
      code: 'addHandler("transform", (request) => request);',
    });
    expect(script.status).toBe(201);
    await page.reload();
    await card.getByRole("button", { name: "Edit Billing" }).click();
    await page.getByLabel("Retries").fill("3");
    await page.getByLabel("Transformation").selectOption({ label: "Add a tag" });
    await page.getByRole("button", { name: "Save destination" }).click();
    await card.getByText(/3 retries .* transformed by Add a tag/).waitFor();

    await card.getByRole("button", { name: "Delete Billing" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete destination" }).click();
    await page.getByText("No destinations yet").waitFor();

    const url = page.url();
    await page.getByRole("button", { name: "Delete bridge" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete bridge" }).click();
    await page.getByRole("heading", { name: "Bridges", exact: true }).waitFor();
    await page.goto(url);
    await page.getByRole("heading", { name: "Bridge not found" }).waitFor();
    await clean();
  });

  test("the filter editor checks a draft as you type (one call per pause) and tries it on the source's latest events", async () => {
    const made = await callAs(world.server, owner, "POST", "/api/v1/bridges", {
      name: unique("Payments"),
      source: { name: unique("Payments source"), type: "webhook" },
      destinations: [],
    });
    const bridge = made.body.data as { id: string; name: string; source_id: string };
    const source = await callAs(world.server, owner, "GET", `/api/v1/sources/${bridge.source_id}`);
    const ingest = async (body: unknown) => {
      const answer = await fetch(source.body.data.ingest_url, {
        method: "POST",
        body: JSON.stringify(body),
      });
      return ((await answer.json()) as { event_id: string }).event_id;
    };
    const paid = await ingest({ type: "paid", amount: 120 });
    const refund = await ingest({ type: "refund", amount: 5 });

    const page = await world.newPage();
    const clean = watch(page);
    const checks: string[] = [];
    page.on("request", (r) => {
      if (r.url().endsWith("/api/v1/filters/test")) checks.push(r.postData() ?? "");
    });
    await open(page, `/bridges/${bridge.id}`, bridge.name);
    await page.getByRole("button", { name: "Add a destination" }).click();
    const editor = page.getByLabel("Filters (JSON)");
    await editor.pressSequentially('[{"body.amount": {"$above": 10}}]');
    await page.locator('textarea[name="filters"][aria-invalid="true"]').waitFor();
    await page.getByText(/filters\[0\]\.body\.amount.*unknown operator \$above/).waitFor();
    // Typed key by key: only the whole draft was sent (the rest was not even JSON yet).
    expect(checks).toHaveLength(1);

    // Two drafts within the pause: the first is never sent.
    await editor.fill('[{"body.type": "refund"}]');
    await editor.fill('[{"body.type": "paid"}]');
    await page.getByText("✔ Filter is valid").waitFor();
    expect(checks).toHaveLength(2);
    expect(checks[1]).toContain("paid");
    expect(await editor.getAttribute("aria-invalid")).toBeNull();
    await page.getByRole("button", { name: "Test against recent events" }).click();
    const results = page.getByRole("region", { name: "Filter test results" });
    await results.getByText("1 of 2 recent events would pass.").waitFor();
    const passes = results.getByRole("listitem").filter({ hasText: paid.slice(-8) });
    await passes.getByText("✔ Passes").waitFor();
    const fails = results.getByRole("listitem").filter({ hasText: refund.slice(-8) });
    await fails.getByText(/✖ Fails at filters\[0\] body\.type/).waitFor();

    await editor.fill('[{"body.type": "refund"}]');
    await results.waitFor({ state: "detached" });
    await page.getByText("✔ Filter is valid").waitFor();
    await page.getByRole("button", { name: "Test against recent events" }).click();
    await page.getByRole("link", { name: `Event ${refund.slice(-8)}` }).click();
    await page.getByRole("heading", { name: /Event POST/ }).waitFor();
    expect(page.url()).toEndWith(`/events/${refund}`);
    await clean();

    // On a phone, the trial's results fit the width.
    const phone = await world.newPage({ width: 375, height: 740 });
    const phoneClean = watch(phone);
    await open(phone, `/bridges/${bridge.id}`, bridge.name);
    await phone.getByRole("button", { name: "Add a destination" }).click();
    await phone.getByLabel("Filters (JSON)").fill('[{"body.type": "paid"}]');
    await phone.getByText("✔ Filter is valid").waitFor();
    await phone.getByRole("button", { name: "Test against recent events" }).click();
    await phone.getByText("1 of 2 recent events would pass.").waitFor();
    expect(await sidewaysOverflow(phone)).toBe(0);
    await phoneClean();
  });

  test("a member reads a bridge without write buttons; chat forms have their own fields; small screen in the dark", async () => {
    const made = await callAs(world.server, owner, "POST", "/api/v1/bridges", {
      name: unique("Alerts"),
      source: { name: unique("Alerts source"), type: "webhook" },
      destinations: [{ name: "Ops chat", type: "slack", webhook_url: "{{SLACK_URL}}" }],
    });
    expect(made.status).toBe(201);
    const bridge = made.body.data as { id: string; name: string };
    const member = await owner.addMember("member");
    const page = await world.newPage({ width: 375, height: 740, colorScheme: "dark" });
    const clean = watch(page);
    await open(page, `/bridges/${bridge.id}`, bridge.name, member);
    await page
      .getByRole("region", { name: "Destination Ops chat" })
      .getByText("{{SLACK_URL}}")
      .waitFor();
    expect(
      await page.getByRole("button", { name: /Pause bridge|Delete|Add a destination/ }).count(),
    ).toBe(0);
    expect(await sidewaysOverflow(page)).toBe(0);
    await page.goto(`${world.server.url}/bridges`);
    await page.getByRole("row", { name: new RegExp(bridge.name) }).waitFor();
    expect(await sidewaysOverflow(page)).toBe(0);
    await clean();

    const admin = await world.newPage();
    const adminClean = watch(admin);
    await open(admin, `/bridges/${bridge.id}`, bridge.name);
    await admin.getByRole("button", { name: "Add a destination" }).click();
    await admin.getByLabel("Type").selectOption("telegram");
    await admin.getByLabel("Bot token").waitFor();
    await admin.getByLabel("Chat id").waitFor();
    expect(await admin.getByLabel("URL", { exact: true }).count()).toBe(0);
    await admin.getByLabel("Type").selectOption("discord");
    await admin.getByLabel("Discord webhook URL").waitFor();
    await adminClean();
  });
});
