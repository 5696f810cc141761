import { describe, expect, test } from "bun:test";
import { moveSelection } from "../kit/list-keys.ts";
import type { RequestRow } from "../lib/types.ts";
import {
  EMPTY_FILTER,
  filterFromSearch,
  filterParams,
  filterRequests,
  inspectorUrl,
  methodsOf,
} from "./request-filter.ts";
import { mergeRequests, newestId, rowFromEvent } from "./requests.ts";

function row(id: string, patch: Partial<RequestRow> = {}): RequestRow {
  return {
    id,
    debug_endpoint_id: "ep",
    method: "POST",
    path: `/w/x/${id}`,
    query_string: "",
    headers: { "content-type": "application/json" },
    raw_headers: [["Content-Type", "application/json"]],
    body: "{}",
    body_encoding: "utf8",
    content_type: "application/json",
    size: 2,
    remote_ip: "10.0.0.1",
    status: "200",
    created_at: `2025-01-01T00:00:0${id}.000Z`,
    ...patch,
  };
}

describe("filtering the loaded list", () => {
  const rows = [
    row("3", { method: "GET", body: "" }),
    row("2", { body: '{"order":"A-17"}' }),
    row("1", { headers: { "x-github-event": "push" } }),
  ];
  test("by method", () => {
    expect(filterRequests(rows, { ...EMPTY_FILTER, method: "get" }).map((r) => r.id)).toEqual([
      "3",
    ]);
  });
  test("by text in body, headers or path, case-insensitive", () => {
    expect(filterRequests(rows, { ...EMPTY_FILTER, text: "a-17" }).map((r) => r.id)).toEqual(["2"]);
    expect(
      filterRequests(rows, { ...EMPTY_FILTER, text: "GitHub-Event" }).map((r) => r.id),
    ).toEqual(["1"]);
    expect(
      filterRequests(rows, { ...EMPTY_FILTER, method: "POST", text: "/w/x/1" }).map((r) => r.id),
    ).toEqual(["1"]);
  });
  test("no filter returns the list itself", () => {
    expect(filterRequests(rows, { ...EMPTY_FILTER, text: " " })).toBe(rows);
  });
  test("by date: from inclusive, to exclusive", () => {
    const at = (iso: string) => {
      const d = new Date(iso);
      const pad = (n: number, w = 2) => String(n).padStart(w, "0");
      return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
    };
    const window = {
      ...EMPTY_FILTER,
      since: at("2025-01-01T00:00:02Z"),
      until: at("2025-01-01T00:00:03Z"),
    };
    expect(filterRequests(rows, window).map((r) => r.id)).toEqual(["2"]);
    expect(filterParams(window).toString()).toBe(
      "since=2025-01-01T00%3A00%3A02.000Z&until=2025-01-01T00%3A00%3A03.000Z",
    );
  });
  test("the server's query: trimmed text, method", () => {
    expect(filterParams({ ...EMPTY_FILTER, text: " a b ", method: "PUT" }).toString()).toBe(
      "q=a+b&method=PUT",
    );
  });
  test("methods offered: the common ones and any present", () => {
    expect(methodsOf([...rows, row("4", { method: "PROPFIND" })])).toContain("PROPFIND");
    expect(methodsOf(rows)).toContain("DELETE");
  });
});

describe("keyboard navigation", () => {
  const ids = ["a", "b", "c"];
  test("j and ArrowDown go down, k and ArrowUp go up, stopping at the ends", () => {
    expect(moveSelection(ids, "a", "j")).toBe("b");
    expect(moveSelection(ids, "b", "ArrowDown")).toBe("c");
    expect(moveSelection(ids, "c", "j")).toBe("c");
    expect(moveSelection(ids, "b", "k")).toBe("a");
    expect(moveSelection(ids, "a", "ArrowUp")).toBe("a");
  });
  test("nothing selected: first row; Home and End jump", () => {
    expect(moveSelection(ids, undefined, "k")).toBe("a");
    expect(moveSelection(ids, "gone", "j")).toBe("a");
    expect(moveSelection(ids, "b", "End")).toBe("c");
    expect(moveSelection(ids, "b", "Home")).toBe("a");
  });
  test("other keys and empty lists change nothing", () => {
    expect(moveSelection(ids, "b", "x")).toBe("b");
    expect(moveSelection([], undefined, "j")).toBeUndefined();
  });
});

describe("merging live and fetched requests", () => {
  const event = {
    request_id: "4",
    endpoint_id: "e",
    method: "PUT",
    headers: { "content-type": "text/plain" },
    body: "héllo",
    status: "200",
    timestamp: "2025-01-01T00:00:04.000Z",
  };
  test("a live event becomes a partial row with the byte size", () => {
    const live = rowFromEvent(event);
    expect(live).toMatchObject({ id: "4", method: "PUT", partial: true, size: 6 });
    expect(rowFromEvent({ ...event, body_truncated: true, body_size: 9000 }).size).toBe(9000);
  });
  test("newest first, one row per id, full rows replace partial ones", () => {
    const list = mergeRequests([row("1"), row("3")], [rowFromEvent(event), row("2")]);
    expect(list.map((r) => r.id)).toEqual(["4", "3", "2", "1"]);
    const full = row("4", { created_at: event.timestamp });
    const merged = mergeRequests(list, [full]);
    expect(merged[0]).toBe(full);
    expect(mergeRequests(merged, [rowFromEvent(event)])).toBe(merged);
  });
  test("newest id is the catch-up cursor", () => {
    expect(newestId([row("2"), row("9"), row("5")])).toBe("9");
    expect(newestId([])).toBeUndefined();
  });
});

describe("the inspector's address", () => {
  test("holds the filter under the API's names and the selected request, and reads them back", () => {
    const filter = { method: "POST", text: "A-17", since: "2026-11-26T09:00:00", until: "" };
    const url = inspectorUrl("/endpoints/e1", filter, "r9");
    expect(url).toBe("/endpoints/e1?method=POST&q=A-17&since=2026-11-26T09%3A00%3A00&request=r9");
    expect(filterFromSearch(url.slice(url.indexOf("?")))).toEqual(filter);
    expect(inspectorUrl("/endpoints/e1", EMPTY_FILTER)).toBe("/endpoints/e1");
  });
});
