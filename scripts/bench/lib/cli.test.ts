import { describe, expect, test } from "bun:test";
import { parseCli } from "./cli.ts";

describe("parseCli", () => {
  test("defaults: all scenarios, 10 s, 3 rounds, 64 connections", () => {
    expect(parseCli([])).toMatchObject({
      scenarios: [],
      durationSec: 10,
      rounds: 3,
      connections: 64,
      warmupSec: 2,
      json: false,
      strict: false,
    });
  });
  test("scenario names and options", () => {
    const options = parseCli([
      "healthz",
      "--duration",
      "5",
      "--rounds",
      "2",
      "--json",
      "--strict",
      "--binary",
      "dist/weir",
    ]);
    expect(options).toMatchObject({
      scenarios: ["healthz"],
      durationSec: 5,
      rounds: 2,
      json: true,
      strict: true,
      binary: "dist/weir",
    });
  });
  test("rejects bad numbers and unknown options", () => {
    expect(() => parseCli(["--rounds", "0"])).toThrow(/--rounds/);
    expect(() => parseCli(["--duration", "1.5"])).toThrow(/--duration/);
    expect(() => parseCli(["--bogus"])).toThrow();
  });
});
