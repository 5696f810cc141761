import { describe, expect, test } from "bun:test";
import { apiCall } from "../test-utils/api-call.ts";
import { preparedDir, runCli } from "../test-utils/cli.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { startTestServer } from "../test-utils/test-server.ts";

const tempDir = useTempDirs("weir-admin-");
const admin = (dir: string, ...args: string[]) => runCli(["admin", ...args, "--data-dir", dir]);
const adminJson = (dir: string, ...args: string[]) => {
  const result = admin(dir, ...args, "--json");
  expect(result.stderr).toBe("");
  expect(result.exitCode).toBe(0);
  return JSON.parse(result.stdout);
};

describe("weir admin (no server running)", () => {
  test("an operator session: users, organizations, plans, an API key that works, a password reset", async () => {
    const dir = tempDir();
    const ops = adminJson(
      dir,
      "create-user",
      "--email",
      "ops@example.com",
      "--password",
      "first-password",
      "--org",
      "Ops",
    );
    expect(ops).toMatchObject({
      email: "ops@example.com",
      organization: "Ops",
      role: "owner",
      plan: "enterprise",
    });
    const dev = adminJson(
      dir,
      "create-user",
      "--email",
      "dev@example.com",
      "--password",
      "dev-password",
      "--org",
      "Ops",
      "--role",
      "admin",
    );
    expect(dev).toMatchObject({ organization_id: ops.organization_id, role: "admin" });
    const solo = adminJson(
      dir,
      "create-user",
      "--email",
      "solo@example.com",
      "--password",
      "solo-password",
    );
    expect(solo).toMatchObject({ role: "owner", plan: "free" });

    const orgs = adminJson(dir, "list-orgs");
    expect(orgs.map((o: { name: string; members: number }) => [o.name, o.members])).toEqual([
      ["Ops", 2],
      ["solo's organization", 1],
    ]);
    const users = adminJson(dir, "list-users");
    expect(
      users.find((u: { email: string }) => u.email === "dev@example.com").organizations,
    ).toEqual([{ id: ops.organization_id, name: "Ops", role: "admin" }]);
    expect(JSON.stringify(users)).not.toMatch(/password|argon/);

    const refused = admin(dir, "create-api-key", "--org", solo.organization_id, "--name", "ci");
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(/^weir: plan free has no API keys/);
    expect(adminJson(dir, "set-plan", "--org", solo.organization_id, "team")).toMatchObject({
      plan: "team",
    });
    const plain = admin(dir, "create-api-key", "--org", "solo's organization", "--name", "ci");
    expect(plain.exitCode).toBe(0);
    const key = plain.stdout.trim();
    expect(key).toMatch(/^svc_[0-9A-Za-z]{32}$/);

    const reset = runCli(
      [
        "admin",
        "reset-password",
        "--email",
        "DEV@example.com",
        "--password-stdin",
        "--data-dir",
        dir,
      ],
      {},
      ["sh", "-c", 'printf "new-password\\n" | "$@"', "sh"],
    );
    expect(reset.exitCode).toBe(0);

    const server = await startTestServer({ config: { data_dir: dir } });
    try {
      const me = await apiCall(server, "GET", "/api/v1/me", { headers: { "x-api-key": key } });
      expect(me.body.organization).toMatchObject({ id: solo.organization_id, plan: "team" });
      const oldLogin = await apiCall(server, "POST", "/api/v1/auth/login", {
        body: { email: "dev@example.com", password: "dev-password" },
      });
      expect(oldLogin.status).toBe(401);
      const newLogin = await apiCall(server, "POST", "/api/v1/auth/login", {
        body: { email: "dev@example.com", password: "new-password" },
      });
      expect(newLogin.status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  test.each([
    [
      ["create-user", "--email", "bad", "--password", "long-enough"],
      /^weir: email must be an email address\n$/,
    ],
    [["create-user", "--email", "a@example.com", "--password", "short"], /^weir: password must be/],
    [["create-user", "--email", "a@example.com"], /^weir: give --password or --password-stdin\n$/],
    [["set-plan", "--org", "nowhere", "team"], /^weir: no organization "nowhere"\n$/],
    [
      ["set-plan", "--org", "nowhere", "gold"],
      /^weir: plan must be one of free, team, enterprise\n$/,
    ],
    [
      ["reset-password", "--email", "ghost@example.com", "--password", "long-enough"],
      /^weir: user not found\n$/,
    ],
  ])("%p fails with one line", (args, message) => {
    const result = admin(preparedDir(tempDir()), ...args);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(message);
  });

  test("WEIR_DEFAULT_PLAN sets the plan of organizations created after the first", () => {
    const dir = tempDir();
    const create = (email: string, env: Record<string, string>) => {
      const result = runCli(
        ["admin", "create-user", "--email", email, "--password", "long-enough", "--json"],
        { WEIR_DATA_DIR: dir, ...env },
      );
      expect(result.stderr).toBe("");
      return JSON.parse(result.stdout).plan;
    };
    expect(create("first@example.com", { WEIR_DEFAULT_PLAN: "team" })).toBe("enterprise");
    expect(create("second@example.com", { WEIR_DEFAULT_PLAN: "team" })).toBe("team");
    expect(create("third@example.com", {})).toBe("free");
  });

  test("a second user with the same email is refused", () => {
    const dir = tempDir();
    adminJson(dir, "create-user", "--email", "same@example.com", "--password", "long-enough");
    const again = admin(
      dir,
      "create-user",
      "--email",
      "SAME@example.com",
      "--password",
      "long-enough",
    );
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toBe("weir: email taken\n");
  });
});
