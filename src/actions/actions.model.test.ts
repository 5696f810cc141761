import { describe, expect, test } from "bun:test";
import { compileFilters } from "../routing/filters.model.ts";
import {
  actionRequest,
  conditionFilter,
  hasTemplate,
  type RunState,
  renderTemplate,
  renderValue,
} from "./actions.model.ts";

const state = (): RunState => ({
  request: actionRequest({
    method: "POST",
    path: "/push",
    queryString: "ref=main&n=2",
    headers: { "x-github-event": "push", "content-type": "application/json" },
    body: new TextEncoder().encode('{"repo":{"name":"api","tags":["a","b"]},"n":3}'),
  }),
  variables: { count: 4, who: "ada", nested: { id: 9 } },
  http: { status: 201, body: { ticket: { id: 42 } } },
});

describe("templates (decisions.md §12)", () => {
  test("every form resolves; what names nothing becomes empty text", () => {
    const text =
      "$request.method$ $request.body.repo.name$ $request.body.repo.tags[1]$ " +
      "$request.headers.X-GitHub-Event$ $request.query.ref$ $count$ $nested.id$ " +
      "$http.status$ $http.body.ticket.id$ [$missing$] [$request.body.nope$]";
    expect(renderTemplate(text, state())).toBe("POST api b push main 4 9 201 42 [] []");
    expect(renderTemplate("$request.body.json$", state())).toBe(
      '{"repo":{"name":"api","tags":["a","b"]},"n":3}',
    );
    expect(renderTemplate("$request.body.repo$", state())).toBe('{"name":"api","tags":["a","b"]}');
    expect(renderTemplate("costs $5 and $6", state())).toBe("costs $5 and $6");
  });

  test("a value that is one template keeps its type; JSON is rendered member by member", () => {
    expect(renderValue("$count$", state())).toBe(4);
    expect(renderValue("$request.body.repo.tags$", state())).toEqual(["a", "b"]);
    expect(renderValue({ text: "n=$count$", list: ["$who$"] }, state())).toEqual({
      text: "n=4",
      list: ["ada"],
    });
  });
});

test("a condition reads the run's variables under variables.<name>", () => {
  const matches = (filter: Record<string, unknown>) => {
    const s = state();
    return compileFilters([conditionFilter(filter)])({
      body: s.request.body,
      headers: s.request.headers,
      query: s.request.query,
      path: s.variables,
    });
  };
  expect(matches({ "variables.count": { $gte: 4 }, "body.n": 3 })).toBe(true);
  expect(matches({ $or: [{ "variables.who": "bob" }, { "headers.x-github-event": "push" }] })).toBe(
    true,
  );
  expect(matches({ "variables.count": { $lt: 4 } })).toBe(false);
});

test("hasTemplate finds a template in any string of a config, and not in filter operators", () => {
  expect(hasTemplate({ "body.type": { $in: ["order.created", "costs $5"] } })).toBe(false);
  expect(hasTemplate({ "body.n": { $eq: "$last$" } })).toBe(true);
  expect(hasTemplate({ $or: [{ "body.a": 1 }, { "body.b": ["x", "id $request.body.id$"] }] })).toBe(
    true,
  );
  expect(hasTemplate([1, null, true])).toBe(false);
});
