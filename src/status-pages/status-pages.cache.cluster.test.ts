import { afterEach, expect, test } from "bun:test";
import { startTestNode, type TestNode } from "../test-utils/cluster-nodes.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { createRenderCache } from "./status-pages.cache.ts";
import { createDomainDirectory } from "./status-pages.domains.ts";
import { forgetChangedPages } from "./status-pages.room.ts";

const databases = usePgDatabases();
const nodes: TestNode[] = [];

afterEach(async () => {
  for (const node of nodes.splice(0)) await node.stop();
});

/** A node with the status pages room's render cache and domain directory, subscribed as the room is. */
async function nodeWithCache(url: string, id: string) {
  const node = await startTestNode(url, id, 0.2);
  nodes.push(node);
  const cache = createRenderCache({ ttlMs: 60_000, maxPages: 10, now: () => Date.now() });
  let domainLookups = 0;
  const domains = createDomainDirectory(async (host) => {
    domainLookups += 1;
    return host === "status.example.test" ? "acme" : null;
  });
  const { event, handler } = forgetChangedPages(cache, domains);
  node.bus.on(event, handler as (payload: unknown) => void);
  const render = (slug: string) =>
    cache.rendered(slug, "html", () => ({ body: `${id}:${slug}`, contentType: "text/html" }));
  return { node, cache, domains, render, lookups: () => domainLookups };
}

test("a page written on one node is rendered afresh on the others", async () => {
  const db = await databases.create();
  const a = await nodeWithCache(db.url, "a");
  const b = await nodeWithCache(db.url, "b");
  for (const node of [a, b]) {
    node.render("acme");
    node.render("other");
    expect(await node.domains.slugOf("status.example.test")).toBe("acme");
  }
  expect(b.cache.peek("acme", "answer:html")).toBeDefined();

  a.node.bus.publish("status_page.changed", { statusPageId: "sp-acme", slug: "acme" });

  await pollUntil(() => b.cache.peek("acme", "answer:html") === undefined, {
    what: "node b forgets its render of the page written on node a",
  });
  expect(a.cache.peek("acme", "answer:html")).toBeUndefined();
  // Only that page: the other page's render stays on both nodes.
  expect(b.cache.peek("other", "answer:html")).toBeDefined();
  expect(a.cache.peek("other", "answer:html")).toBeDefined();
  // The custom domain is looked up again on b, as its host may have moved.
  await b.domains.slugOf("status.example.test");
  expect(b.lookups()).toBe(2);
});
