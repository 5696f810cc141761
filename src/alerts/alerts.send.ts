// The outbox's "alert" kind: at send time, a firing becomes its rule's channel request. Chat
// channels are rendered by the same providers as chat destinations; the webhook channel sends
// the alert document, signed with the rule's Standard Webhooks secret by the outbox.
import { channelProvider } from "../delivery/channels/channels.registry.ts";
import type {
  DeliveryKindHandlers,
  DeliveryRecord,
  DeliveryResponse,
  Prepared,
} from "../delivery/delivery.ports.ts";
import type { Clock } from "../shared/clock.ts";
import { type Concealment, MASK } from "../shared/conceal.ts";
import type { Sealer } from "../shared/sealed.ts";
import { secretConcealments } from "../shared/secret-template.ts";
import { alertEvent } from "./alert-message.model.ts";
import { type EmailSettings, emailMessage } from "./alerts.email.ts";
import { ruleIdOfDestinationKey } from "./alerts.firing.ts";
import { type Mailer, mailAttempt } from "./alerts.mailer.ts";
import { type AlertChannelType, fillSecrets } from "./alerts.model.ts";
import type { StoredRule } from "./alerts.repo.ts";
import type { AlertsStore } from "./alerts.store.ts";
import { apiKeyAlertEvent, isApiKeySnapshot } from "./api-key-alert.model.ts";

export interface SendDeps {
  store: Pick<AlertsStore, "findFiring" | "findRuleById">;
  sealer: Sealer;
  clock: Clock;
  /** The secrets room's lookup, for `{{NAME}}` in a channel's settings. */
  resolveSecrets?(organizationId: string): Promise<(name: string) => string | undefined>;
  telegramApiBase?: string;
  /** The operator's mail server; null: email channels cannot send (their alerts fail, retrying). */
  mailer: Mailer | null;
  /** The base of links in alerts (`base_url`, or the local address while none is set). */
  linkBase(): string;
  /**
   * Takes one of the organization's mails of this clock hour; false when they are spent. Absent:
   * counted in memory (one node); with several nodes, one count they share.
   */
  takeMail?(organizationId: string): Promise<boolean>;
}

/** The secrets that sign a webhook channel's alert now: current first, then one replaced < 24 h ago. */
export function signingSecretsOf(stored: StoredRule, sealer: Sealer, now: number): string[] {
  const { current, previous, previousUntil } = stored.secrets;
  if (stored.rule.channelType !== "webhook" || !current) return [];
  const secrets = [sealer.open(current, stored.rule.id)];
  if (previous && previousUntil !== null && previousUntil > now) {
    secrets.push(sealer.open(previous, stored.rule.id));
  }
  return secrets;
}

const gone: Prepared = {
  fail: {
    errorType: "network_error",
    errorCode: "alert_rule_deleted",
    message: "the alert rule no longer exists",
    retryable: false,
  },
};

async function prepare(
  delivery: DeliveryRecord,
  deps: SendDeps,
  mailAllowed: (organizationId: string) => Promise<boolean>,
  channelTypes: Map<string, AlertChannelType>,
): Promise<Prepared> {
  const firing = await deps.store.findFiring(delivery.subjectId);
  const stored = firing ? await deps.store.findRuleById(firing.ruleId) : null;
  if (!firing || !stored) return gone;
  const { rule } = stored;
  channelTypes.set(rule.id, rule.channelType);
  const lookup = (await deps.resolveSecrets?.(rule.organizationId)) ?? (() => undefined);
  const filled = fillSecrets(rule.channel, lookup);
  if ("missing" in filled) {
    return {
      fail: {
        errorType: "authentication_error",
        errorCode: "missing_secret",
        message: `secret ${filled.missing} is not defined`,
        // As for destinations: defining the secret lets a later attempt succeed.
        retryable: true,
      },
    };
  }
  const { snapshot } = firing;
  const about = { alertId: firing.id, test: firing.test, rule, firedAt: firing.createdAt };
  const event = isApiKeySnapshot(snapshot)
    ? apiKeyAlertEvent({ ...about, snapshot })
    : alertEvent({ ...about, snapshot, linkBase: deps.linkBase() });
  if (rule.channelType === "email") {
    const message = emailMessage(event, filled.settings as unknown as EmailSettings);
    return prepareMail(message, () => mailAllowed(rule.organizationId), deps);
  }
  const provider = channelProvider(rule.channelType, { telegramApiBase: deps.telegramApiBase });
  if (!provider) return gone;
  const request = provider.format(event, filled.settings);
  return {
    send: {
      url: request.url,
      method: request.method,
      headers: [...(request.headers ?? [])],
      body: typeof request.body === "string" ? request.body : (request.body ?? ""),
      signingSecrets: signingSecretsOf(stored, deps.sealer, deps.clock.now()),
      concealed: channelConcealments(rule.channel, filled.settings, lookup),
    },
  };
}

/**
 * Mails one organization may send an hour. The mail server is the operator's, exempt from the
 * outbound address policy and sending under the operator's name: without a budget any
 * organization could mail any address from it (a rule's test, a flapping push monitor).
 */
export const MAIL_PER_HOUR = 60;
export const HOUR_MS = 3_600_000;

/** Counts each organization's mails in the current clock hour (in memory: a budget, not a record). */
function mailBudget(clock: Clock) {
  let hour = -1;
  const sent = new Map<string, number>();
  return (organizationId: string): boolean => {
    const now = Math.floor(clock.now() / HOUR_MS);
    if (now !== hour) {
      hour = now;
      sent.clear();
    }
    const count = sent.get(organizationId) ?? 0;
    if (count >= MAIL_PER_HOUR) return false;
    sent.set(organizationId, count + 1);
    return true;
  };
}

const overBudget: Prepared = {
  fail: {
    errorType: "network_error",
    errorCode: "mail_limit_reached",
    message: `the organization sent its ${MAIL_PER_HOUR} mails of this hour`,
    // A later attempt, in the next hour, sends it: an alert is late rather than lost.
    retryable: true,
  },
};

/** A mail as the outbox sends it: through the mailer, recorded like a request to the server. */
async function prepareMail(
  message: ReturnType<typeof emailMessage>,
  withinBudget: () => Promise<boolean>,
  deps: SendDeps,
): Promise<Prepared> {
  if (deps.mailer && !(await withinBudget())) return overBudget;
  return mailAttempt(deps.mailer, message);
}

/**
 * What an alert's attempts must never show: each secret its channel names (as `{{NAME}}`), and a
 * Telegram bot token, secret or not (as `***`: it sits in the URL of every message).
 */
function channelConcealments(
  written: Record<string, unknown>,
  filled: Record<string, unknown>,
  lookup: (name: string) => string | undefined,
): Concealment[] {
  const texts = (settings: Record<string, unknown>): string[] =>
    Object.values(settings).flatMap((value) =>
      typeof value === "string"
        ? [value]
        : value && typeof value === "object"
          ? texts(value as Record<string, unknown>)
          : [],
    );
  const token: Concealment[] =
    typeof filled.bot_token === "string" && filled.bot_token !== ""
      ? [[filled.bot_token, MASK]]
      : [];
  return [...token, ...secretConcealments(texts(written), lookup)];
}

/** The handlers the alerts room registers for the outbox's "alert" kind. */
export function alertKindHandlers(deps: SendDeps): DeliveryKindHandlers {
  const inMemory = mailBudget(deps.clock);
  const mailAllowed = deps.takeMail ?? (async (organizationId: string) => inMemory(organizationId));
  // A rule's channel type as its last prepare read it: the answer's retry hint is read
  // synchronously, and every answer follows a prepare of its delivery (keyed by rule: bounded).
  const channelTypes = new Map<string, AlertChannelType>();
  return {
    prepare: (delivery) => prepare(delivery, deps, mailAllowed, channelTypes),
    retryAfterMs(delivery: DeliveryRecord, response: DeliveryResponse) {
      const channelType = channelTypes.get(ruleIdOfDestinationKey(delivery.destinationKey));
      if (!channelType) return null;
      const provider = channelProvider(channelType, {
        telegramApiBase: deps.telegramApiBase,
      });
      return provider?.retryAfterMs?.(response) ?? null;
    },
  };
}
