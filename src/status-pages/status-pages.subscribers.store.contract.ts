import { describe, expect, test } from "bun:test";
import type { Subscriber } from "./status-pages.subscribers.model.ts";
import type { SubscribersStore } from "./status-pages.subscribers.store.ts";

/** A store over an empty, migrated database holding SEED_SQL's rows. */
export type MakeSubscribersStore = () => Promise<SubscribersStore>;

const CREATED = "2026-01-01T00:00:00.000Z";
const pageRow = (id: string, org: string, allow: number) =>
  `('${id}', '${org}', 'Page ${id}', 'slug-${id}', '#000000', ${allow}, '${CREATED}', '${CREATED}')`;

/** Organization o-1 (team) with page p-1 offering mail, o-2 (free) with p-2 not offering it. */
export const SEED_SQL = `
  INSERT INTO organizations (id, name, plan, created_at, updated_at) VALUES
    ('o-1', 'One', 'team', '${CREATED}', '${CREATED}'),
    ('o-2', 'Two', 'free', '${CREATED}', '${CREATED}');
  INSERT INTO status_pages (id, organization_id, name, slug, primary_color, allow_subscribers,
    created_at, updated_at) VALUES ${pageRow("p-1", "o-1", 1)}, ${pageRow("p-2", "o-2", 0)};`;

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();

const subscriber = (
  id: string,
  pageId: string,
  minute: number,
  extra: Partial<Subscriber> = {},
) => ({
  id,
  statusPageId: pageId,
  email: `${id}@example.test`,
  linkBase: "https://weir.example.test",
  confirmedAt: null,
  confirmationSentAt: null,
  createdAt: at(minute),
  ...extra,
});

const mail = { subject: "Down", body: "It is down." };

/** One suite of behaviour every SubscribersStore implementation must show. */
export function describeSubscribersStore(name: string, makeStore: MakeSubscribersStore) {
  describe(`SubscribersStore on ${name}`, () => {
    test("subscribers are found by id and by page and address; lists keep their orders", async () => {
      const store = await makeStore();
      await store.insert(subscriber("s-1", "p-1", 1));
      await store.insert(subscriber("s-3", "p-1", 2, { confirmedAt: at(3) }));
      await store.insert(subscriber("s-2", "p-1", 2));
      await store.insert(subscriber("s-9", "p-2", 1));
      expect(await store.find("s-1")).toEqual(subscriber("s-1", "p-1", 1));
      expect(await store.findByEmail("p-1", "s-2@example.test")).toEqual(
        subscriber("s-2", "p-1", 2),
      );
      expect(await store.findByEmail("p-2", "s-2@example.test")).toBeNull();
      expect(await store.find("s-none")).toBeNull();
      const ids = (list: Subscriber[]) => list.map((s) => s.id);
      expect(ids(await store.page("p-1", 2, 0))).toEqual(["s-3", "s-2"]);
      expect(ids(await store.page("p-1", 2, 2))).toEqual(["s-1"]);
      expect(ids(await store.all("p-1"))).toEqual(["s-1", "s-2", "s-3"]);
      expect(ids(await store.confirmed("p-1"))).toEqual(["s-3"]);
      expect(await store.count("p-1")).toBe(3);
      expect(await store.count("p-2")).toBe(1);
      expect(await store.count("p-none")).toBe(0);
    });

    test("confirming happens once; confirmation mails are remembered across pages", async () => {
      const store = await makeStore();
      await store.insert(subscriber("s-1", "p-1", 1, { email: "ada@example.test" }));
      await store.insert(subscriber("s-2", "p-2", 1, { email: "ada@example.test" }));
      expect(await store.lastConfirmationTo("ada@example.test")).toBeNull();
      await store.confirmationSent("s-1", at(4), "https://one.example.test");
      await store.confirmationSent("s-2", at(6), "https://two.example.test");
      expect(await store.lastConfirmationTo("ada@example.test")).toBe(at(6));
      expect(await store.find("s-1")).toMatchObject({
        confirmationSentAt: at(4),
        linkBase: "https://one.example.test",
      });
      expect(await store.confirm("s-1", at(7))).toBe(true);
      expect(await store.confirm("s-1", at(8))).toBe(false);
      expect((await store.find("s-1"))?.confirmedAt).toBe(at(7));
      expect(await store.confirm("s-none", at(8))).toBe(false);
    });

    test("removing is by page: another page's id removes nothing", async () => {
      const store = await makeStore();
      await store.insert(subscriber("s-1", "p-1", 1));
      expect(await store.remove("p-2", "s-1")).toBe(false);
      expect(await store.remove("p-1", "s-1")).toBe(true);
      expect(await store.find("s-1")).toBeNull();
      expect(await store.remove("p-1", "s-1")).toBe(false);
    });

    test("a mail comes back with its subscriber, and not once the subscriber is gone", async () => {
      const store = await makeStore();
      await store.insert(subscriber("s-1", "p-1", 1));
      await store.insertMail(
        { id: "mail-1", organizationId: "o-1" },
        "s-1",
        "incident",
        mail,
        at(2),
      );
      expect(await store.findMail("mail-1")).toEqual({
        id: "mail-1",
        kind: "incident",
        ...mail,
        subscriber: subscriber("s-1", "p-1", 1),
      });
      await store.remove("p-1", "s-1");
      expect(await store.findMail("mail-1")).toBeNull();
      expect(await store.findMail("mail-none")).toBeNull();
    });

    test("retention: organizations with mails, their old mails oldest first, removal by id", async () => {
      const store = await makeStore();
      await store.insert(subscriber("s-1", "p-1", 1));
      for (const [id, minute] of [
        ["mail-b", 2],
        ["mail-a", 1],
        ["mail-c", 9],
      ] as const) {
        await store.insertMail({ id, organizationId: "o-1" }, "s-1", "incident", mail, at(minute));
      }
      expect(await store.tenantsWithMails()).toEqual([{ id: "o-1", plan: "team" }]);
      expect(await store.mailsBefore("o-1", at(5), 10)).toEqual(["mail-a", "mail-b"]);
      expect(await store.mailsBefore("o-1", at(5), 1)).toEqual(["mail-a"]);
      expect(await store.mailsBefore("o-2", at(5), 10)).toEqual([]);
      await store.removeMails([]);
      await store.removeMails(["mail-a", "mail-b"]);
      expect(await store.mailsBefore("o-1", at(10), 10)).toEqual(["mail-c"]);
    });

    test("pages offering mail, their plans, and each maintenance start noted once", async () => {
      const store = await makeStore();
      expect(await store.pagesOffering()).toEqual([{ id: "p-1", organizationId: "o-1" }]);
      expect(await store.planOfPage("p-1")).toBe("team");
      expect(await store.planOfPage("p-2")).toBe("free");
      expect(await store.planOfPage("p-none")).toBe("free");
      expect(await store.noteStart("p-1", "w-1", at(10), at(10))).toBe(true);
      expect(await store.noteStart("p-1", "w-1", at(10), at(11))).toBe(false);
      expect(await store.noteStart("p-1", "w-1", at(20), at(20))).toBe(true);
      expect(await store.noteStart("p-2", "w-1", at(10), at(10))).toBe(true);
    });
  });
}
