/**
 * Issues in chromium against a real server: grouped by status with counts, an issue's recent
 * failures linking to their events, the status workflow, and an alert's link opened logged out.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { watchPage } from "../test-utils/browser-checks.ts";
import { sidewaysOverflow, startUiWorld, type UiWorld } from "../test-utils/browser-world.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";

let world: UiWorld;
let owner: TestAccount;
const sink = startHttpSink();
let counter = 0;

beforeAll(async () => {
  world = await startUiWorld({ config: { retry_base_ms: 60_000, retry_cap_ms: 60_000 } });
  owner = await signUp(world.server);
  sink.answer(() => ({ status: 503, body: "down for maintenance" }));
}, 60_000);

afterAll(async () => {
  await world?.stop();
  await sink.stop();
});

/** A bridge whose only destination answers 503, and one failed event: an open issue. */
async function openIssue() {
  counter += 1;
  const made = await callAs(world.server, owner, "POST", "/api/v1/bridges", {
    name: `Payments ${counter}`,
    source: { name: `Shop ${counter}`, type: "webhook" },
    destinations: [{ name: `Ledger ${counter}`, url: `${sink.url}/ledger`, max_retries: 0 }],
  });
  expect(made.status).toBe(201);
  const bridge = made.body.data as { id: string; name: string; source_id: string };
  const sent = await world.server.request(`/api/v1/sources/${bridge.source_id}/ingest`, {
    method: "POST",
    body: JSON.stringify({ order: counter }),
  });
  const eventId = ((await sent.json()) as { event_id: string }).event_id;
  const issue = await pollUntil(
    async () => {
      const list = await callAs(
        world.server,
        owner,
        "GET",
        `/api/v1/issues?bridge_id=${bridge.id}`,
      );
      return (list.body.items as { id: string }[])[0];
    },
    { what: "an issue opened", timeoutMs: 10_000 },
  );
  return { bridge, eventId, issueId: issue.id };
}

const watch = (page: Page) => watchPage(world, page);

describe("issues in chromium", () => {
  test("grouped by status with counts; an issue's failures link to events; open → in progress → closed", async () => {
    const { bridge, eventId, issueId } = await openIssue();
    const page = await world.newPage();
    const clean = watch(page);
    await world.logIn(page, owner);
    await page.goto(`${world.server.url}/issues`);
    await page.getByRole("heading", { name: "Issues", exact: true }).waitFor();
    await page.getByLabel("Bridge").selectOption({ label: bridge.name });
    await page.waitForURL(new RegExp(`bridge_id=${bridge.id}`));
    await page.getByRole("link", { name: "Open (1)" }).waitFor();
    const row = page.getByRole("row", { name: new RegExp(`Ledger ${counter}.*http_error.*Open`) });
    await row.waitFor();
    await row.getByRole("link").click();
    await page.waitForURL(`**/issues/${issueId}`);
    await page.getByText("down for maintenance").waitFor();
    expect(await page.title()).toBe("Issue · Weir");

    await page.getByRole("button", { name: "In progress" }).click();
    await page.getByText("◐ In progress").waitFor();
    await pollUntil(
      async () =>
        (await callAs(world.server, owner, "GET", `/api/v1/issues/${issueId}`)).body.status ===
        "work_in_progress",
      { what: "the issue in progress" },
    );
    await page.getByRole("button", { name: "Closed" }).click();
    await page.getByRole("status").getByText("Issue marked closed").waitFor();

    await page
      .getByRole("list", { name: "Recent failures" })
      .getByRole("link", { name: "Open event" })
      .first()
      .click();
    await page.waitForURL(`**/events/${eventId}`);
    await page.getByRole("heading", { name: "Request as received" }).waitFor();

    await page.goto(`${world.server.url}/issues?status=closed&bridge_id=${bridge.id}`);
    await page.getByRole("link", { name: "Closed (1)" }).waitFor();
    await page.getByRole("row", { name: /Closed/ }).waitFor();
    await clean();
  });

  test("an alert's link, opened logged out, logs in and lands on the issue; a member cannot change status", async () => {
    const { issueId } = await openIssue();
    const member = await owner.addMember("member");
    const page = await world.newPage({ width: 375, height: 740, colorScheme: "dark" });
    const clean = watch(page);
    await page.goto(`${world.server.url}/issues/${issueId}`);
    await page.getByRole("heading", { name: "Log in to Weir" }).waitFor();
    await page.getByLabel("Email").fill(member.email);
    await page.getByLabel("Password").fill(member.password);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.waitForURL(`**/issues/${issueId}`);
    await page.getByText("down for maintenance").waitFor();
    expect(await page.getByRole("button", { name: "Closed" }).count()).toBe(0);
    expect(await sidewaysOverflow(page)).toBe(0);

    await page.goto(`${world.server.url}/issues/01a2181a-0000-7000-8000-000000000000`);
    await page.getByRole("heading", { name: "Issue not found" }).waitFor();
    await clean();
  });
});
