import type { PageRequest } from "../db/db.pagination.ts";
import type { TxHandle } from "../db/db.tx.ts";
import type { DeliveryPorts } from "../delivery/delivery.ports.ts";
import { generateSigningSecret } from "../delivery/delivery.signing.ts";
import { bodyProblems } from "../shared/body-schema.ts";
import { type Clock, isoAt } from "../shared/clock.ts";
import { type FieldErrors, notFound, validationFailed } from "../shared/errors.ts";
import type { Ids } from "../shared/ids.ts";
import type { Sealer } from "../shared/sealed.ts";
import { sampleSnapshot } from "./alert-message.model.ts";
import { RuleCreateBody, RuleUpdateBody } from "./alerts.bodies.ts";
import { fire } from "./alerts.firing.ts";
import { type AlertRule, parseRuleInput, type RuleInput } from "./alerts.model.ts";
import { presentFiring, presentRule, type RuleView } from "./alerts.present.ts";
import { type AlertsRepo, NO_SECRETS, type SealedSecrets, type StoredRule } from "./alerts.repo.ts";
import { isApiKeyCondition, sampleApiKeySnapshot } from "./api-key-alert.model.ts";

export interface AlertsDeps {
  repo: AlertsRepo;
  tx<T>(fn: (tx: TxHandle) => T): T;
  clock: Clock;
  ids: Ids;
  /** Seals a webhook channel's signing secret at rest, with the rule id as associated data. */
  sealer: Sealer;
  /** The outbound address policy's verdict on a channel URL (null: acceptable). */
  checkTarget(url: string): string | null;
  /** Whether the server has mail settings: without them an email channel is refused. */
  smtpConfigured: boolean;
  delivery: Pick<DeliveryPorts, "enqueue" | "wake" | "listBySubject">;
}

const failIf = (errors: FieldErrors) => {
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
};

function requireRule(organizationId: string, id: string, deps: AlertsDeps): StoredRule {
  const stored = deps.repo.findRule(organizationId, id);
  if (!stored) throw notFound();
  return stored;
}

/** How long a replaced signing secret keeps signing after a rotation, as for destinations. */
export const PREVIOUS_SECRET_MS = 24 * 3600 * 1000;

/**
 * The sealed secrets a rule's channel keeps after a change, and the new secret in clear when one
 * was made: a webhook channel gets one when it is created (or another channel becomes one) and
 * keeps its secrets across changes of its URL; chat channels are not signed and hold none.
 */
function secretsFor(
  rule: AlertRule,
  previous: StoredRule | null,
  deps: AlertsDeps,
): { secrets: SealedSecrets; shown?: string } {
  if (rule.channelType !== "webhook") return { secrets: NO_SECRETS };
  if (previous?.rule.channelType === "webhook" && previous.secrets.current) {
    return { secrets: previous.secrets };
  }
  const secret = generateSigningSecret();
  return { secrets: { ...NO_SECRETS, current: deps.sealer.seal(secret, rule.id) }, shown: secret };
}

const parse = (body: unknown, partial: boolean, deps: AlertsDeps): RuleInput => {
  const { input, errors } = parseRuleInput(body, {
    partial,
    checkTarget: deps.checkTarget,
    smtpConfigured: deps.smtpConfigured,
  });
  failIf(bodyProblems(partial ? RuleUpdateBody : RuleCreateBody, body, errors));
  return input;
};

/** POST /alert-rules: 422 naming each bad field; a webhook channel's secret is shown once. */
export function createRule(organizationId: string, body: unknown, deps: AlertsDeps): RuleView {
  const input = parse(body, false, deps);
  const now = isoAt(deps.clock.now());
  const channel = input.channel as NonNullable<RuleInput["channel"]>;
  const rule: AlertRule = {
    id: deps.ids.uuid(),
    organizationId,
    name: input.name as string,
    condition: input.condition as AlertRule["condition"],
    channelType: channel.type,
    channel: channel.settings,
    enabled: input.enabled ?? true,
    createdAt: now,
    updatedAt: now,
  };
  const { secrets, shown } = secretsFor(rule, null, deps);
  deps.repo.insertRule({ rule, secrets });
  return presentRule(rule, shown);
}

export function listRules(organizationId: string, page: PageRequest, deps: AlertsDeps) {
  const { rules, total } = deps.repo.page(organizationId, page.pageSize, page.offset);
  return { rules: rules.map((rule) => presentRule(rule)), total };
}

export const getRule = (organizationId: string, id: string, deps: AlertsDeps): RuleView =>
  presentRule(requireRule(organizationId, id, deps).rule);

/** PATCH: any of name, condition, channel (replaced whole), enabled. */
export function updateRule(
  organizationId: string,
  id: string,
  body: unknown,
  deps: AlertsDeps,
): RuleView {
  const previous = requireRule(organizationId, id, deps);
  const input = parse(body, true, deps);
  const rule: AlertRule = {
    ...previous.rule,
    name: input.name ?? previous.rule.name,
    condition: input.condition ?? previous.rule.condition,
    channelType: input.channel?.type ?? previous.rule.channelType,
    channel: input.channel?.settings ?? previous.rule.channel,
    enabled: input.enabled ?? previous.rule.enabled,
    updatedAt: isoAt(deps.clock.now()),
  };
  const { secrets, shown } = secretsFor(rule, previous, deps);
  deps.repo.updateRule({ rule, secrets });
  return presentRule(rule, shown);
}

/**
 * POST /alert-rules/{id}/rotate-secret: a new signing secret for a webhook channel, shown once;
 * the one it replaces keeps signing for 24 h (alerts then carry both signatures, new first), and a
 * second rotation keeps only the secret it replaces, as for destinations (decisions.md §8).
 */
export function rotateSecret(organizationId: string, id: string, deps: AlertsDeps) {
  const stored = requireRule(organizationId, id, deps);
  if (stored.rule.channelType !== "webhook") {
    throw validationFailed({ "channel.type": ["only a webhook channel has a signing secret"] });
  }
  const secret = generateSigningSecret();
  const now = deps.clock.now();
  const { current } = stored.secrets;
  const secrets: SealedSecrets = {
    current: deps.sealer.seal(secret, id),
    previous: current,
    previousUntil: current ? now + PREVIOUS_SECRET_MS : null,
  };
  deps.repo.updateRule({ rule: { ...stored.rule, updatedAt: isoAt(now) }, secrets });
  return { signing_secret: secret };
}

export function deleteRule(organizationId: string, id: string, deps: AlertsDeps): void {
  if (!deps.repo.removeRule(organizationId, id)) throw notFound();
}

/**
 * POST /alert-rules/{id}/test: a sample alert of the rule's own shape (`test: true`, a made-up
 * issue) goes through the outbox now, retried and recorded like any alert; disabled rules too,
 * so a channel can be checked before it is switched on.
 */
export function sendTestAlert(organizationId: string, id: string, deps: AlertsDeps) {
  const { rule } = requireRule(organizationId, id, deps);
  const at = isoAt(deps.clock.now());
  const snapshot = isApiKeyCondition(rule.condition.type)
    ? sampleApiKeySnapshot(at)
    : sampleSnapshot(rule, at);
  const written = deps.tx((tx) => fire(tx, rule, null, snapshot, deps));
  if (!written) throw new Error("a test alert collided with another firing");
  deps.delivery.wake();
  return { alert_id: written.firing.id, delivery_id: written.delivery.id };
}

/** GET /alert-rules/{id}/alerts: what the rule sent, newest first, with each delivery's state. */
export async function listAlerts(
  organizationId: string,
  id: string,
  page: PageRequest,
  deps: AlertsDeps,
) {
  requireRule(organizationId, id, deps);
  const { firings, total } = deps.repo.firingsPage(id, page.pageSize, page.offset);
  const deliveries = await deps.delivery.listBySubject(
    "alert",
    firings.map((firing) => firing.id),
  );
  const bySubject = new Map(deliveries.map((delivery) => [delivery.subjectId, delivery]));
  return { alerts: firings.map((f) => presentFiring(f, bySubject.get(f.id))), total };
}
