import { describe, expect, test } from "bun:test";
import { DEFAULT_PLANS, parsePlanTable } from "../shared/plans.ts";
import { checkPermission, type Permission, type Principal, type Role } from "./auth.model.ts";

const principal = (role: Role, authMethod: Principal["authMethod"] = "jwt"): Principal => ({
  authMethod,
  userId: authMethod === "jwt" ? "u" : null,
  apiKeyId: authMethod === "api_key" ? "k" : null,
  organizationId: "o",
  role,
  plan: "team",
});

describe("checkPermission", () => {
  const cases: [Role, Principal["authMethod"], Permission, ReturnType<typeof checkPermission>][] = [
    ["member", "jwt", "read", "ok"],
    ["member", "jwt", "write", "forbidden"],
    ["member", "jwt", "manage", "forbidden"],
    ["member", "jwt", "manage_api_keys", "forbidden"],
    ["admin", "jwt", "read", "ok"],
    ["admin", "jwt", "write", "ok"],
    ["admin", "jwt", "manage", "forbidden"],
    ["admin", "jwt", "manage_api_keys", "forbidden"],
    ["owner", "jwt", "manage", "ok"],
    ["owner", "jwt", "manage_api_keys", "ok"],
    ["owner", "api_key", "write", "ok"],
    ["owner", "api_key", "manage", "ok"],
    ["owner", "api_key", "manage_api_keys", "jwt_required"],
  ];
  test.each(cases)("%s via %s asking %s → %s", (role, method, permission, verdict) => {
    expect(checkPermission(principal(role, method), permission)).toBe(verdict);
  });
});

describe("parsePlanTable", () => {
  test("overrides single cells and keeps the rest", () => {
    const table = parsePlanTable({
      free: { debug_endpoints: 5 },
      enterprise: { retention_days: 365 },
    });
    expect(table.free.debug_endpoints).toBe(5);
    expect(table.free.retention_days).toBe(DEFAULT_PLANS.free.retention_days);
    expect(table.enterprise.retention_days).toBe(365);
    expect(DEFAULT_PLANS.free.debug_endpoints).toBe(3);
  });

  test("reads JSON from the environment and -1 as unlimited", () => {
    expect(parsePlanTable('{"team":{"debug_endpoints":-1}}').team.debug_endpoints).toBeNull();
  });

  test.each([
    [{ gold: {} }, /unknown plan "gold"/],
    [{ free: { endpoints: 1 } }, /unknown plan setting "free.endpoints"/],
    [{ free: { realtime: "yes" } }, /invalid value/],
    [{ free: { retention_days: -1 } }, /invalid value/],
    ["{not json", /must be JSON/],
  ])("refuses %p", (raw, message) => {
    expect(() => parsePlanTable(raw)).toThrow(message);
  });
});
