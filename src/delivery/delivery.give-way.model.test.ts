import { describe, expect, test } from "bun:test";
import {
  deliveryLimit,
  giveWayPolicy,
  type IngestPressure,
  NO_PRESSURE,
  observeBatch,
} from "./delivery.give-way.model.ts";

const policy = giveWayPolicy(256, 32);
const NOW = 1_000_000;

describe("deliveryLimit", () => {
  const cases: [string, IngestPressure, number, number][] = [
    ["no ingest yet", NO_PRESSURE, NOW, 256],
    ["1,000 events/s: batches of one or two", { batch: 1.5, at: NOW }, NOW, 256],
    ["a slow loop at a moderate rate", { batch: 12, at: NOW }, NOW, 256],
    ["at the busy bound", { batch: 16, at: NOW }, NOW, 256],
    ["just over it", { batch: 17, at: NOW }, NOW, 249],
    ["half way to saturated", { batch: 32, at: NOW }, NOW, 144],
    ["nearly saturated", { batch: 47, at: NOW }, NOW, 39],
    ["saturated: the floor", { batch: 48, at: NOW }, NOW, 32],
    ["more than ever fit a batch", { batch: 200, at: NOW }, NOW, 32],
    ["saturated, last batch 100 ms ago", { batch: 64, at: NOW - 100 }, NOW, 32],
    ["saturated, but the burst ended", { batch: 64, at: NOW - 101 }, NOW, 256],
  ];
  for (const [name, pressure, now, limit] of cases) {
    test(name, () => expect(deliveryLimit(pressure, now, policy)).toBe(limit));
  }

  test("the floor never exceeds the configured concurrency", () => {
    const small = giveWayPolicy(16, 32);
    expect(deliveryLimit({ batch: 64, at: NOW }, NOW, small)).toBe(16);
    expect(deliveryLimit(NO_PRESSURE, NOW, small)).toBe(16);
  });

  test("floor 0 (the default): deliveries never give way", () => {
    const off = giveWayPolicy(256, 0);
    expect(deliveryLimit({ batch: 200, at: NOW }, NOW, off)).toBe(256);
  });

  test("the limit only falls as batches grow", () => {
    let last = Number.POSITIVE_INFINITY;
    for (let batch = 0; batch <= 80; batch += 0.5) {
      const limit = deliveryLimit({ batch, at: NOW }, NOW, policy);
      expect(limit).toBeLessThanOrEqual(last);
      expect(limit).toBeGreaterThanOrEqual(policy.floor);
      last = limit;
    }
  });
});

describe("observeBatch", () => {
  const cases: [string, IngestPressure, number, number, IngestPressure][] = [
    ["the first batch is taken as it is", NO_PRESSURE, 40, NOW, { batch: 40, at: NOW }],
    [
      "one big batch moves a calm mean a quarter",
      { batch: 2, at: NOW },
      42,
      NOW + 1,
      { batch: 12, at: NOW + 1 },
    ],
    [
      "one small batch in a burst does not end it",
      { batch: 60, at: NOW },
      4,
      NOW + 5,
      { batch: 46, at: NOW + 5 },
    ],
    [
      "after a quiet spell the old mean is forgotten",
      { batch: 60, at: NOW },
      1,
      NOW + 101,
      { batch: 1, at: NOW + 101 },
    ],
  ];
  for (const [name, before, size, now, after] of cases) {
    test(name, () => expect(observeBatch(before, size, now, policy)).toEqual(after));
  }

  test("a steady burst reaches the floor within a few batches, and full concurrency right after", () => {
    let pressure = observeBatch(NO_PRESSURE, 1, NOW, policy);
    let now = NOW;
    const limits: number[] = [];
    for (let i = 0; i < 6; i++) {
      now += 10;
      pressure = observeBatch(pressure, 64, now, policy);
      limits.push(deliveryLimit(pressure, now, policy));
    }
    expect(limits.at(-1)).toBe(policy.floor);
    expect(limits).toEqual([...limits].sort((a, b) => b - a));
    expect(deliveryLimit(pressure, now + 101, policy)).toBe(256);
  });
});
