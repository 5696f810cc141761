import { describe, expect, test } from "bun:test";
import { createLogger } from "../shared/logger.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import {
  createFailureLog,
  FAILURE_LOG_INTERVAL_MS,
  type FailedTry,
} from "./delivery.failure-log.ts";

function setup() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level: "info", write: (line) => lines.push(JSON.parse(line)) });
  const clock = createFakeClock();
  return { lines, clock, log: createFailureLog(logger, clock) };
}

const failure = (destinationKey: string, attempt = 1): FailedTry => ({
  kind: "forward",
  destinationKey,
  deliveryId: "d-1",
  attempt,
  url: "http://10.0.0.9/hook",
  statusCode: null,
  errorType: "network_error",
  errorCode: "connection_refused",
  errorMessage: "connect ECONNREFUSED",
});

describe("failed tries in the log", () => {
  test("the first failure of a destination is a warn line naming what failed, without payloads", () => {
    const { lines, log } = setup();
    log(failure("forward:e1"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: "warn",
      msg: "forward attempt failed",
      destination: "forward:e1",
      error_type: "network_error",
      error_code: "connection_refused",
      url: "http://10.0.0.9/hook",
      failed_since_last_line: 0,
    });
    expect(Object.keys(lines[0] ?? {})).not.toContain("body");
  });

  test("a flood writes one line a minute per destination, and the next line counts the rest", () => {
    const { lines, log, clock } = setup();
    for (let i = 1; i <= 500; i++) log(failure("forward:e1", i));
    log(failure("forward:e2"));
    expect(lines.map((l) => l.destination)).toEqual(["forward:e1", "forward:e2"]);
    clock.advance(FAILURE_LOG_INTERVAL_MS - 1);
    log(failure("forward:e1", 501));
    expect(lines).toHaveLength(2);
    clock.advance(1);
    log(failure("forward:e1", 502));
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatchObject({ attempt: 502, failed_since_last_line: 500 });
  });
});
