import { describe, expect, test } from "bun:test";
import { requestUrl, shellQuote, toCurl } from "./curl.ts";

const request = {
  method: "POST",
  path: "/sub",
  query_string: "a=1&b=x%20y",
  raw_headers: [
    ["Host", "localhost:8080"],
    ["Content-Type", "application/json"],
    ["X-Signature", "it's signed"],
    ["Content-Length", "7"],
    ["x-dup", "1"],
    ["x-dup", "2"],
  ] as [string, string][],
  body: '{"a":1}',
  body_encoding: "utf8" as const,
};

describe("copy as curl", () => {
  test("method, capture URL with sub-path and query, ordered headers, exact body", () => {
    expect(toCurl(request, "http://hooks.example.com/w/orders")).toBe(
      [
        "curl -X POST 'http://hooks.example.com/w/orders/sub?a=1&b=x%20y'",
        "-H 'Content-Type: application/json'",
        "-H 'X-Signature: it'\\''s signed'",
        "-H 'x-dup: 1'",
        "-H 'x-dup: 2'",
        "--data-binary '{\"a\":1}'",
      ].join(" \\\n  "),
    );
  });
  test("a body-less GET has no --data-binary", () => {
    const get = { ...request, method: "GET", body: "", query_string: "", raw_headers: [] };
    expect(toCurl(get, "http://h/w/orders")).toBe("curl -X GET http://h/w/orders/sub");
  });
  test("a binary body goes through base64 -d on stdin", () => {
    const binary = { ...request, body: "AP8Q", body_encoding: "base64" as const, raw_headers: [] };
    expect(toCurl(binary, "http://h/w/orders")).toBe(
      "printf %s AP8Q | base64 -d | curl -X POST 'http://h/w/orders/sub?a=1&b=x%20y' \\\n  --data-binary @-",
    );
  });
  test("runs in a real shell and sends the same bytes", async () => {
    const seen: { method: string; url: string; headers: Headers; body: Uint8Array }[] = [];
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(r) {
        const body = new Uint8Array(await r.arrayBuffer());
        seen.push({ method: r.method, url: r.url, headers: r.headers, body });
        return new Response("ok");
      },
    });
    try {
      const tricky = { ...request, body: 'it\'s $HOME `x` \\n "q"\n' };
      const command = toCurl(tricky, `http://127.0.0.1:${server.port}/w/orders`);
      // Async: the server answering curl runs on this very event loop.
      const run = Bun.spawn(["bash", "-c", `${command} --silent --show-error`], { stderr: "pipe" });
      expect(await run.exited).toBe(0);
      expect(await new Response(run.stderr).text()).toBe("");
      expect(seen).toHaveLength(1);
      expect(seen[0]?.method).toBe("POST");
      expect(seen[0]?.url).toBe(`http://127.0.0.1:${server.port}/w/orders/sub?a=1&b=x%20y`);
      expect(seen[0]?.headers.get("x-signature")).toBe("it's signed");
      expect(seen[0]?.headers.get("x-dup")).toBe("1, 2");
      expect(new TextDecoder().decode(seen[0]?.body)).toBe(tricky.body);

      const bytes = [0, 255, 16, 10, 39];
      const binary = {
        ...request,
        body: Buffer.from(bytes).toString("base64"),
        body_encoding: "base64" as const,
      };
      const piped = Bun.spawn([
        "bash",
        "-c",
        `${toCurl(binary, `http://127.0.0.1:${server.port}/w/o`)} -s`,
      ]);
      expect(await piped.exited).toBe(0);
      expect([...(seen[1]?.body ?? [])]).toEqual(bytes);
    } finally {
      server.stop(true);
    }
  });
});

test("shell quoting leaves safe words bare and quotes the rest", () => {
  expect(shellQuote("POST")).toBe("POST");
  expect(shellQuote("a b")).toBe("'a b'");
  expect(shellQuote("it's")).toBe("'it'\\''s'");
});

test("request URL keeps the capture origin and the request's own path", () => {
  expect(requestUrl({ path: "", query_string: "" }, "https://x.test:8443/w/a")).toBe(
    "https://x.test:8443/w/a",
  );
  expect(requestUrl({ path: "/b/c", query_string: "q=1" }, "https://x.test/w/a")).toBe(
    "https://x.test/w/a/b/c?q=1",
  );
});
