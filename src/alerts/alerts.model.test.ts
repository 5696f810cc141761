import { describe, expect, test } from "bun:test";
import type { IssueChange } from "../issues/issues.ports.ts";
import { createSealer } from "../shared/sealed.ts";
import {
  type AlertCondition,
  type AlertRule,
  changeMeets,
  conditionKey,
  fillSecrets,
  openLongEnough,
} from "./alerts.model.ts";
import { signingSecretsOf } from "./alerts.send.ts";
import { PREVIOUS_SECRET_MS } from "./alerts.service.ts";

const DAY = 86_400_000;

function change(kind: IssueChange["kind"], count: number, priority: "normal" | "high" = "normal") {
  return {
    kind,
    issue: { occurrenceCount: count },
    context: { destinationPriority: priority },
  } as IssueChange;
}

describe("which change meets which condition", () => {
  const created: AlertCondition = { type: "issue_created", value: null };
  const threshold: AlertCondition = { type: "occurrence_threshold", value: 3 };
  const priority: AlertCondition = { type: "high_priority_destination", value: null };
  const aged: AlertCondition = { type: "open_for_days", value: 1 };

  test.each([
    ["created", 1, "normal", [true, false, false, false]],
    ["occurred", 2, "normal", [false, false, false, false]],
    ["occurred", 3, "normal", [false, true, false, false]],
    ["reopened", 9, "high", [false, true, true, false]],
    ["created", 1, "high", [true, false, true, false]],
  ] as const)("%s, count %d, %s priority", (kind, count, level, expected) => {
    const met = [created, threshold, priority, aged].map((c) =>
      changeMeets(c, change(kind, count, level)),
    );
    expect(met).toEqual([...expected]);
  });

  test("open_for_days compares the opening with now minus the days, inclusive", () => {
    const now = Date.UTC(2026, 0, 10);
    const condition: AlertCondition = { type: "open_for_days", value: 1.5 };
    expect(openLongEnough(condition, new Date(now - 1.5 * DAY).toISOString(), now)).toBe(true);
    expect(openLongEnough(condition, new Date(now - 1.5 * DAY + 1).toISOString(), now)).toBe(false);
    expect(
      openLongEnough({ type: "issue_created", value: null }, "2000-01-01T00:00:00Z", now),
    ).toBe(false);
  });

  test("the once-per-issue key names the condition and its value", () => {
    expect(conditionKey({ type: "issue_created", value: null })).toBe("issue_created");
    expect(conditionKey({ type: "occurrence_threshold", value: 100 })).toBe(
      "occurrence_threshold:100",
    );
  });
});

describe("{{SECRET}} filling", () => {
  const lookup = (name: string) => ({ TOKEN: "t0k", HOST: "ops.example" })[name];

  test("string settings and nested header values are filled", () => {
    expect(
      fillSecrets(
        { url: "https://{{HOST}}/hook", headers: { Authorization: "Bearer {{ TOKEN }}" } },
        lookup,
      ),
    ).toEqual({
      settings: { url: "https://ops.example/hook", headers: { Authorization: "Bearer t0k" } },
    });
  });

  test("the first unknown name is reported", () => {
    expect(fillSecrets({ bot_token: "{{TOKEN}}", chat_id: "{{CHAT}}" }, lookup)).toEqual({
      missing: "CHAT",
    });
  });
});

describe("signing secrets at send time", () => {
  const sealer = createSealer(new Uint8Array(32).fill(7), "alert-channel-signing-secret");
  const rule = { id: "rule-1", channelType: "webhook" } as AlertRule;
  const now = Date.UTC(2026, 0, 1);
  const stored = (previousUntil: number | null) => ({
    rule,
    secrets: {
      current: sealer.seal("whsec_new", rule.id),
      previous: sealer.seal("whsec_old", rule.id),
      previousUntil,
    },
  });

  test("the replaced secret signs for 24 h after a rotation, then only the new one", () => {
    expect(signingSecretsOf(stored(now + PREVIOUS_SECRET_MS), sealer, now)).toEqual([
      "whsec_new",
      "whsec_old",
    ]);
    expect(signingSecretsOf(stored(now), sealer, now)).toEqual(["whsec_new"]);
    expect(signingSecretsOf(stored(null), sealer, now)).toEqual(["whsec_new"]);
  });

  test("a chat channel is not signed", () => {
    const chat = { ...stored(null), rule: { ...rule, channelType: "slack" } as AlertRule };
    expect(signingSecretsOf(chat, sealer, now)).toEqual([]);
  });
});
