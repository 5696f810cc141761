import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { organizations } from "../auth/auth.table.ts";

/**
 * An organization's alert rules: a condition on issues and the channel an alert goes to. The
 * channel's settings are stored as written (`{{NAME}}` templates verbatim, filled at send time);
 * a webhook channel's signing secret (and the one a rotation replaced) is sealed with the rule id
 * as associated data.
 */
export const alertRules = sqliteTable(
  "alert_rules",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    conditionType: text("condition_type").notNull(),
    conditionValue: real("condition_value"),
    /** Monitor conditions: the monitor ids the rule hears, as JSON (NULL: every monitor). */
    conditionMonitorIds: text("condition_monitor_ids"),
    channelType: text("channel_type").notNull(),
    /** The channel's settings as JSON (without its type). */
    channel: text("channel").notNull(),
    signingSecret: text("signing_secret"),
    previousSigningSecret: text("previous_signing_secret"),
    /** Epoch ms until which the replaced secret still signs (24 h after a rotation). */
    previousSecretUntil: integer("previous_secret_until"),
    enabled: integer("enabled", { mode: "boolean" }).notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("alert_rules_org_idx").on(t.organizationId, t.createdAt)],
);

/**
 * One alert a rule raised: the subject of its delivery in the outbox, with the issue as it was
 * when the condition was met. The unique (rule, issue, condition) row is written in the same
 * transaction as the delivery, so a rule fires at most once per issue per condition however
 * many failures race; a test alert has no issue (NULLs never collide).
 */
export const alertFirings = sqliteTable(
  "alert_firings",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull(),
    ruleId: text("rule_id")
      .notNull()
      .references(() => alertRules.id, { onDelete: "cascade" }),
    issueId: text("issue_id"),
    /** `<condition type>:<value>`: a changed condition may fire again for the same issue. */
    conditionKey: text("condition_key").notNull(),
    test: integer("test", { mode: "boolean" }).notNull(),
    /** The alert as sent: the issue's fields and names at firing time (JSON). */
    payload: text("payload").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("alert_firings_once_unique").on(t.ruleId, t.issueId, t.conditionKey),
    index("alert_firings_rule_idx").on(t.ruleId, t.createdAt),
  ],
);
