import { generateSigningSecret } from "../delivery/delivery.signing.ts";
import { bodyProblems } from "../shared/body-schema.ts";
import { isoAt } from "../shared/clock.ts";
import { notFound, validationFailed } from "../shared/errors.ts";
import type { SealedSecrets } from "./bridges.repo.ts";
import {
  type BridgesDeps,
  buildDestination,
  checksFor,
  failIf,
  requireBridge,
  tooMany,
  viewOf,
} from "./bridges.service.ts";
import { type Destination, PREVIOUS_SECRET_MS, parseDestination } from "./destinations.model.ts";
import { DestinationBody, DestinationUpdateBody } from "./routing.bodies.ts";
import { presentDestination } from "./routing.present.ts";
import { asObject } from "./sources.model.ts";

// A bridge's destinations under `/api/v1/bridges/{id}/destinations`, and their signing secrets.

export async function requireDestination(
  organizationId: string,
  bridgeId: string,
  id: string,
  deps: BridgesDeps,
) {
  const bridge = await requireBridge(organizationId, bridgeId, deps);
  const destination = await deps.bridges.findDestination(bridge.id, id);
  if (!destination) throw notFound();
  return { bridge, destination };
}

export async function listDestinations(
  organizationId: string,
  bridgeId: string,
  deps: BridgesDeps,
) {
  const bridge = await requireBridge(organizationId, bridgeId, deps);
  return (await deps.bridges.destinationsOf([bridge.id])).map(presentDestination);
}

export async function getDestination(
  organizationId: string,
  bridgeId: string,
  id: string,
  deps: BridgesDeps,
) {
  return presentDestination(
    (await requireDestination(organizationId, bridgeId, id, deps)).destination,
  );
}

export async function addDestination(
  organizationId: string,
  bridgeId: string,
  body: unknown,
  deps: BridgesDeps,
) {
  const bridge = await requireBridge(organizationId, bridgeId, deps);
  const checks = await checksFor(organizationId, [body], deps);
  const { settings, errors } = parseDestination(body, checks);
  // Counted here for the answer's other errors too; the store counts again as it adds.
  if ((await deps.bridges.destinationsOf([bridge.id])).length >= deps.maxDestinations) {
    errors.destinations = [tooMany(deps)];
  }
  failIf(bodyProblems(DestinationBody, body, errors));
  const built = buildDestination(bridge, settings, deps);
  if (!(await deps.bridges.addDestination(built.added, deps.maxDestinations))) {
    throw validationFailed({ destinations: [tooMany(deps)] });
  }
  deps.routesChanged();
  return viewOf(built);
}

/**
 * PUT/PATCH of a destination: the fields sent over the stored ones, validated as a whole (the
 * type may not change: its secret and fields belong to it).
 */
export async function updateDestination(
  organizationId: string,
  bridgeId: string,
  id: string,
  body: unknown,
  deps: BridgesDeps,
) {
  const { destination } = await requireDestination(organizationId, bridgeId, id, deps);
  const patch = asObject(body);
  const merged = { ...storedFields(destination), ...patch };
  const checks = await checksFor(organizationId, [merged], deps);
  const { settings, errors } = parseDestination(merged, checks);
  if (patch.type !== undefined && patch.type !== destination.type) {
    errors.type = ["cannot change; create a new destination instead"];
  }
  failIf(bodyProblems(DestinationUpdateBody, patch, errors));
  const updated: Destination = { ...destination, ...settings, updatedAt: isoAt(deps.clock.now()) };
  await deps.bridges.updateDestination(updated);
  deps.routesChanged();
  return presentDestination(updated);
}

/** A stored destination in the request shape, so a partial update is validated as a whole. */
function storedFields(d: Destination): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    name: d.name,
    type: d.type,
    priority: d.priority,
    filters: d.filters,
    transformation_id: d.transformationId,
    max_retries: d.maxRetries,
  };
  if (d.type === "http")
    Object.assign(fields, {
      url: d.url,
      method: d.method,
      headers: d.headers,
      path_forwarding: d.pathForwarding,
    });
  if (d.webhookUrl !== null) fields.webhook_url = d.webhookUrl;
  if (d.botToken !== null) Object.assign(fields, { bot_token: d.botToken, chat_id: d.chatId });
  return fields;
}

export async function deleteDestination(
  organizationId: string,
  bridgeId: string,
  id: string,
  deps: BridgesDeps,
) {
  const bridge = await requireBridge(organizationId, bridgeId, deps);
  if (!(await deps.bridges.removeDestination(bridge.id, id))) throw notFound();
  deps.routesChanged();
}

/**
 * A new signing secret; the one it replaces keeps signing for 24 h (a second rotation keeps
 * only the secret it replaces). Only http destinations are signed.
 */
export async function rotateSecret(
  organizationId: string,
  bridgeId: string,
  id: string,
  deps: BridgesDeps,
) {
  const { destination } = await requireDestination(organizationId, bridgeId, id, deps);
  if (destination.type !== "http") {
    throw validationFailed({ type: ["only http destinations have a signing secret"] });
  }
  const secret = generateSigningSecret();
  const now = deps.clock.now();
  await deps.bridges.rotateSecret(
    destination.id,
    deps.sealer.seal(secret, destination.id),
    now + PREVIOUS_SECRET_MS,
    isoAt(now),
  );
  // Deliveries sign with the new secret from now on: prepared destinations are reopened.
  deps.routesChanged();
  return { signing_secret: secret };
}

/**
 * The secrets that sign a delivery now, from the destination's sealed ones (as the delivery path
 * has already read them): current first, then one replaced less than 24 h ago.
 */
export function openSigningSecrets(
  destinationId: string,
  sealed: SealedSecrets,
  deps: Pick<BridgesDeps, "sealer" | "clock">,
): string[] {
  if (!sealed.current) return [];
  const secrets = [deps.sealer.open(sealed.current, destinationId)];
  const { previous, previousUntil } = sealed;
  if (previous && previousUntil !== null && previousUntil > deps.clock.now()) {
    secrets.push(deps.sealer.open(previous, destinationId));
  }
  return secrets;
}
