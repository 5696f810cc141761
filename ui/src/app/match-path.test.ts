import { expect, test } from "bun:test";
import { matchPath } from "./match-path.ts";

test("a path finds its route and parameters; an unknown or longer one finds nothing", () => {
  const routes = [
    { path: "/", title: "Home" },
    { path: "/bridges/:id", title: "Bridge" },
    { path: "/endpoints/:id/settings", title: "Endpoint settings" },
  ];
  expect(matchPath("/bridges/01a2", routes)).toEqual({
    route: { path: "/bridges/:id", title: "Bridge" },
    params: { id: "01a2" },
  });
  expect(matchPath("/endpoints/e%201/settings", routes)?.params).toEqual({ id: "e 1" });
  expect(matchPath("/", routes)?.route.title).toBe("Home");
  expect(matchPath("/bridges/a/b", routes)).toBeNull();
  expect(matchPath("/nowhere", routes)).toBeNull();
});
