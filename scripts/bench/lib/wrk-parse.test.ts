import { describe, expect, test } from "bun:test";
import { parseCount, parseDurationMs, parseWrkOutput } from "./wrk-parse.ts";

// Captured from wrk 4.1.0 (Debian) against baseline-server.ts.
const CLEAN = `Running 3s test @ http://127.0.0.1:18790/
  1 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     4.58ms    8.30ms  88.87ms   96.76%
    Req/Sec    18.46k     5.73k   25.93k    63.33%
  Latency Distribution
     50%    2.87ms
     75%    4.13ms
     90%    7.51ms
     99%   57.21ms
  55292 requests in 3.02s, 10.02MB read
Requests/sec:  18323.10
Transfer/sec:      3.32MB
`;

// Same layout with wrk's error lines and microsecond / second units.
const ERRORS = `Running 10s test @ http://127.0.0.1:8080/healthz
  1 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   812.00us    1.20s    2.00s    99.10%
    Req/Sec     1.20M   100.00k    1.30M    70.00%
  Latency Distribution
     50%  812.00us
     75%    1.02ms
     90%    1.50s
     99%    2.00s
  120000 requests in 10.00s, 20.00MB read
  Socket errors: connect 0, read 3, write 1, timeout 12
  Non-2xx or 3xx responses: 4567
Requests/sec:  12000.50
Transfer/sec:      2.00MB
`;

describe("parseDurationMs", () => {
  test("reads every wrk time unit as milliseconds", () => {
    expect(parseDurationMs("812.00us")).toBeCloseTo(0.812);
    expect(parseDurationMs("2.87ms")).toBeCloseTo(2.87);
    expect(parseDurationMs("1.50s")).toBeCloseTo(1500);
    expect(parseDurationMs("2.00m")).toBeCloseTo(120_000);
    expect(parseDurationMs("1.00h")).toBeCloseTo(3_600_000);
  });
  test("rejects what it does not know", () => {
    expect(() => parseDurationMs("3.2ns")).toThrow();
    expect(() => parseDurationMs("fast")).toThrow();
  });
});

describe("parseCount", () => {
  test("reads k/M/G suffixes and plain numbers", () => {
    expect(parseCount("18.46k")).toBeCloseTo(18_460);
    expect(parseCount("1.20M")).toBeCloseTo(1_200_000);
    expect(parseCount("2.00G")).toBeCloseTo(2e9);
    expect(parseCount("950.00")).toBe(950);
  });
  test("rejects unknown suffixes", () => {
    expect(() => parseCount("3.00x")).toThrow();
  });
});

describe("parseWrkOutput", () => {
  test("a clean run", () => {
    const result = parseWrkOutput(CLEAN);
    expect(result.rate).toBeCloseTo(18323.1);
    expect(result.latencyMs.p50).toBeCloseTo(2.87);
    expect(result.latencyMs.p90).toBeCloseTo(7.51);
    expect(result.latencyMs.p99).toBeCloseTo(57.21);
    expect(result.totalRequests).toBe(55292);
    expect(result.threadRateAvg).toBeCloseTo(18_460);
    expect(result.non2xx).toBe(0);
    expect(result.errors).toBe(0);
    expect(result.errorDetail).toBeUndefined();
  });
  test("a run with socket errors and non-2xx responses", () => {
    const result = parseWrkOutput(ERRORS);
    expect(result.rate).toBeCloseTo(12000.5);
    expect(result.latencyMs.p50).toBeCloseTo(0.812);
    expect(result.latencyMs.p90).toBeCloseTo(1500);
    expect(result.latencyMs.p99).toBeCloseTo(2000);
    expect(result.threadRateAvg).toBeCloseTo(1_200_000);
    expect(result.non2xx).toBe(4567);
    expect(result.socketErrors).toEqual({ connect: 0, read: 3, write: 1, timeout: 12 });
    expect(result.errors).toBe(16);
    expect(result.errorDetail).toBe("connect 0, read 3, write 1, timeout 12");
  });
  test("does not mistake 75% or 99.9% lines for another percentile", () => {
    const odd = CLEAN.replace("     99%   57.21ms", "     99.000%   57.21ms");
    expect(parseWrkOutput(odd).latencyMs.p99).toBeCloseTo(57.21);
  });
  test("fails loudly without Requests/sec or the latency distribution", () => {
    expect(() => parseWrkOutput("unable to connect to 127.0.0.1:1 Connection refused")).toThrow(
      /Requests\/sec/,
    );
    const noLatency = CLEAN.replace(/ {2}Latency Distribution[\s\S]*?(?= {2}55292)/, "");
    expect(() => parseWrkOutput(noLatency)).toThrow(/--latency/);
  });
});
