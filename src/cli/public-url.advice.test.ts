import { describe, expect, test } from "bun:test";
import { spawnCli } from "../test-utils/cli.ts";
import { freePort } from "../test-utils/free-port.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { publicUrlAdvice } from "./public-url.advice.ts";

const tempDir = useTempDirs("weir-advice-");

describe("what serve says about the public URL", () => {
  const base = { port: 8080, machineName: "homelab" };

  test("all interfaces, base_url unset: the UI on the machine's name, and how to fix one URL", () => {
    const advice = publicUrlAdvice({ ...base, host: "0.0.0.0", base_url: "" });
    expect(advice.uiUrl).toBe("http://homelab:8080");
    expect(advice.problem).toBe(false);
    expect(advice.note).toContain("set WEIR_BASE_URL=https://hooks.example.com");
  });

  test("all interfaces with a loopback base_url is a problem, with the fix", () => {
    const advice = publicUrlAdvice({ ...base, host: "0.0.0.0", base_url: "http://localhost:8080" });
    expect(advice.problem).toBe(true);
    expect(advice.note).toContain("set WEIR_BASE_URL=http://homelab:8080");
  });

  test("a public base_url, or a server on loopback only, needs no word", () => {
    const set = publicUrlAdvice({
      ...base,
      host: "0.0.0.0",
      base_url: "https://hooks.example.com",
    });
    expect(set).toEqual({ uiUrl: "https://hooks.example.com", note: undefined, problem: false });
    const local = publicUrlAdvice({ ...base, host: "127.0.0.1", base_url: "" });
    expect(local).toEqual({ uiUrl: "http://127.0.0.1:8080", problem: false });
  });

  test("weir serve prints the line once it listens", async () => {
    const child = spawnCli(["serve", "--port", String(freePort()), "--data-dir", tempDir()]);
    const decoder = new TextDecoder();
    let out = "";
    const reader = child.stdout.getReader();
    try {
      const line = await pollUntil(
        async () => {
          const { value } = await reader.read();
          out += decoder.decode(value ?? new Uint8Array());
          return out.split("\n").find((l) => l.includes("web UI at"));
        },
        { timeoutMs: 15_000, what: "the start line" },
      );
      const record = JSON.parse(line);
      expect(record.level).toBe("info");
      expect(record.msg).toMatch(/^web UI at http:\/\/\S+:\d+; base_url is not set: /);
    } finally {
      reader.releaseLock();
      child.kill("SIGTERM");
      await child.exited;
    }
  });
});
