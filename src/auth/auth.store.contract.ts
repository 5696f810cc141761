import { describe, expect, test } from "bun:test";
import { account, at, organization, user } from "../test-utils/auth-rows.ts";
import type { ApiKeyEvent } from "./api-keys.ports.ts";
import { describeApiKeysStore } from "./api-keys.store.contract.ts";
import type { AuthStore, UserRow } from "./auth.store.ts";

/** A store over an empty, migrated database; key events it tells go to `onKeyEvent`. */
export type MakeAuthStore = (onKeyEvent: (event: ApiKeyEvent) => void) => Promise<AuthStore>;

/** One suite of behaviour every AuthStore implementation must show (API keys: api-keys.store.contract.ts). */
export function describeAuthStore(name: string, makeStore: MakeAuthStore) {
  const fresh = async () => {
    const events: ApiKeyEvent[] = [];
    const store = await makeStore((event) => events.push(event));
    return { store, events };
  };

  describe(`AuthStore on ${name}`, () => {
    test("accounts: the first organization gets the first plan, later ones theirs; joining keeps the role", async () => {
      const { store } = await fresh();
      expect(await store.countUsers()).toBe(0);
      const first = await store.insertAccount(account("ada", { minute: 1 }));
      expect(first).toEqual({
        user: user("u-ada", "ada@Example.test", 1),
        organization: {
          id: "o-ada",
          name: "Org ada",
          plan: "enterprise",
          createdAt: at(1),
          updatedAt: at(1),
        },
        role: "owner",
      });
      const second = await organization(store, account("bob", { minute: 2, plan: "team" }));
      expect(second.plan).toBe("team");
      const joined = await store.insertAccount(
        account("cy", { minute: 3, join: "Org ada", role: "admin" }),
      );
      expect(joined).toMatchObject({ organization: { id: "o-ada" }, role: "admin" });
      const byId = await store.insertAccount(account("dee", { minute: 4, join: "o-bob" }));
      expect(byId).toMatchObject({ organization: { id: "o-bob" }, role: "member" });
      expect(await store.countUsers()).toBe(4);
      expect((await store.listUsers()).map((u) => u.id)).toEqual([
        "u-ada",
        "u-bob",
        "u-cy",
        "u-dee",
      ]);
      expect((await store.listOrganizations()).map((o) => o.id)).toEqual(["o-ada", "o-bob"]);
    });

    test("accounts: a taken email, an ambiguous name and a closed first run write nothing", async () => {
      const { store } = await fresh();
      await organization(store, account("ada", { minute: 1 }));
      const again = account("ada", { minute: 2 });
      again.user = { ...again.user, id: "u-other", email: "ADA@example.test" };
      expect(await store.insertAccount(again)).toBe("email_taken");
      await organization(store, {
        ...account("twin", { minute: 3 }),
        organization: { id: "o-t2", name: "Org ada", createdAt: at(3) },
      });
      expect(await store.insertAccount(account("eve", { minute: 4, join: "Org ada" }))).toBe(
        "organization_ambiguous",
      );
      expect(await store.insertAccount(account("fay", { minute: 5, first: true }))).toBe(
        "registration_closed",
      );
      expect(await store.userByEmailKey("eve@example.test")).toBeUndefined();
      expect(await store.userByEmailKey("fay@example.test")).toBeUndefined();
      expect(await store.countUsers()).toBe(2);
      expect(await store.organizationByIdOrName("Org ada")).toBe("ambiguous");
      expect(await store.organizationByIdOrName("o-t2")).toMatchObject({ id: "o-t2" });
      expect(await store.organizationByIdOrName("nobody")).toBeUndefined();
    });

    test("accounts: two at once with one email, or two first runs: one wins", async () => {
      const { store } = await fresh();
      const a = account("ada", { minute: 1, first: true });
      const b = {
        ...account("bob", { minute: 1, first: true }),
        user: { ...user("u-b", "ada@example.test", 1) },
      };
      const outcomes = await Promise.all([store.insertAccount(a), store.insertAccount(b)]);
      expect(outcomes.filter((o) => typeof o === "object")).toHaveLength(1);
      expect(outcomes.filter((o) => typeof o === "string")).toHaveLength(1);
      const c = account("cy", { minute: 2 });
      const d = { ...account("dee", { minute: 2 }), user: user("u-d", "CY@example.test", 2) };
      const racing = await Promise.all([store.insertAccount(c), store.insertAccount(d)]);
      expect(racing.filter((o) => o === "email_taken")).toHaveLength(1);
      expect(await store.countUsers()).toBe(2);
    });

    test("users and organizations: lookups, password, rename and plan", async () => {
      const { store } = await fresh();
      await organization(store, account("ada", { minute: 1 }));
      expect(await store.userById("u-ada")).toEqual(user("u-ada", "ada@Example.test", 1));
      expect(await store.userById("nobody")).toBeUndefined();
      await store.setPassword("u-ada", "new-hash", at(9));
      expect(await store.userByEmailKey("ada@example.test")).toMatchObject({
        passwordHash: "new-hash",
        updatedAt: at(9),
      });
      expect(await store.renameOrganization("o-ada", "Renamed", at(9))).toEqual({
        id: "o-ada",
        name: "Renamed",
        plan: "enterprise",
        createdAt: at(1),
        updatedAt: at(9),
      });
      expect(await store.renameOrganization("nobody", "X", at(9))).toBeUndefined();
      await store.setPlan("o-ada", "free", at(10));
      expect(await store.organizationById("o-ada")).toMatchObject({
        plan: "free",
        updatedAt: at(10),
      });
    });

    test("memberships: scoped to their organization, oldest first", async () => {
      const { store } = await fresh();
      await organization(store, account("ada", { minute: 1 }));
      await organization(store, account("bob", { minute: 2, plan: "team" }));
      await store.insertAccount(account("cy", { minute: 3, join: "o-ada", role: "admin" }));
      expect(await store.membership("u-ada", "o-ada")).toEqual({
        role: "owner",
        plan: "enterprise",
      });
      expect(await store.membership("u-ada", "o-bob")).toBeUndefined();
      expect(
        await store.addMember({
          organizationId: "o-bob",
          emailKey: "ada@example.test",
          newUser: null,
          role: "member",
          createdAt: at(4),
        }),
      ).toEqual({ userId: "u-ada", email: "ada@Example.test", role: "member", createdAt: at(4) });
      expect(await store.membershipsOf("u-ada")).toEqual([
        { organizationId: "o-ada", name: "Org ada", plan: "enterprise", role: "owner" },
        { organizationId: "o-bob", name: "Org bob", plan: "team", role: "member" },
      ]);
      expect((await store.membersOf("o-ada")).map((m) => [m.userId, m.role])).toEqual([
        ["u-ada", "owner"],
        ["u-cy", "admin"],
      ]);
      expect((await store.membersOf("o-bob")).map((m) => m.userId)).toEqual(["u-bob", "u-ada"]);
    });

    test("adding members: a new user, an existing member, an unknown address without a user", async () => {
      const { store } = await fresh();
      await organization(store, account("ada", { minute: 1 }));
      const newcomer = user("u-new", "new@example.test", 5);
      const add = (newUser: UserRow | null) =>
        store.addMember({
          organizationId: "o-ada",
          emailKey: "new@example.test",
          newUser,
          role: "admin",
          createdAt: at(5),
        });
      expect(
        await store.addMember({
          organizationId: "o-ada",
          emailKey: "nobody@example.test",
          newUser: null,
          role: "admin",
          createdAt: at(5),
        }),
      ).toBe("no_user");
      const both = await Promise.all([add(newcomer), add(newcomer)]);
      expect(both).toContainEqual({
        userId: "u-new",
        email: "new@example.test",
        role: "admin",
        createdAt: at(5),
      });
      expect(both).toContain("already_member");
      expect(await store.userById("u-new")).toEqual(newcomer);
    });

    test("roles: another organization's member is not found, the last owner stays", async () => {
      const { store } = await fresh();
      await organization(store, account("ada", { minute: 1 }));
      await organization(store, account("bob", { minute: 2 }));
      await store.insertAccount(account("cy", { minute: 3, join: "o-ada", role: "owner" }));
      expect(await store.changeRole("o-bob", "u-cy", "member")).toBe("not_found");
      expect(await store.removeMember("o-bob", "u-ada")).toBe("not_found");
      expect(await store.changeRole("o-bob", "u-bob", "admin")).toBe("last_owner");
      expect(await store.removeMember("o-bob", "u-bob")).toBe("last_owner");
      // Two owners demoted at once: one of them stays an owner.
      const demotions = await Promise.all([
        store.changeRole("o-ada", "u-ada", "admin"),
        store.changeRole("o-ada", "u-cy", "member"),
      ]);
      expect(demotions).toContain("last_owner");
      expect((await store.membersOf("o-ada")).filter((m) => m.role === "owner")).toHaveLength(1);
      const admin = await store.insertAccount(
        account("dee", { minute: 4, join: "o-ada", role: "admin" }),
      );
      expect(typeof admin).toBe("object");
      expect(await store.changeRole("o-ada", "u-dee", "member")).toMatchObject({
        userId: "u-dee",
        role: "member",
        createdAt: at(4),
      });
      expect(await store.removeMember("o-ada", "u-dee")).toBe("removed");
      expect(await store.membership("u-dee", "o-ada")).toBeUndefined();
      expect(await store.membership("u-bob", "o-bob")).toEqual({ role: "owner", plan: "free" });
    });
  });
  describeApiKeysStore(name, makeStore);
}
