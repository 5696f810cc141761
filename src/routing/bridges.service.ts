import { generateSigningSecret } from "../delivery/delivery.signing.ts";
import { bodyProblems } from "../shared/body-schema.ts";
import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import { type FieldErrors, notFound, validationFailed } from "../shared/errors.ts";
import type { Ids } from "../shared/ids.ts";
import type { Sealer } from "../shared/sealed.ts";
import type { Bridge } from "./bridges.repo.ts";
import type { BridgesStore, NewDestination } from "./bridges.store.ts";
import {
  type Destination,
  type DestinationChecks,
  type DestinationSettings,
  parseDestination,
} from "./destinations.model.ts";
import { BridgeCreateBody, BridgeUpdateBody } from "./routing.bodies.ts";
import { routingErrors } from "./routing.errors.ts";
import { type DestinationView, presentBridge, presentDestination } from "./routing.present.ts";
import { asObject, checkName, parseSourceInput, type Source } from "./sources.model.ts";
import { newSource } from "./sources.service.ts";
import type { SourcesStore } from "./sources.store.ts";

export interface BridgesDeps {
  bridges: BridgesStore;
  sources: Pick<SourcesStore, "find">;
  clock: Clock;
  ids: Ids;
  /** Seals signing secrets at rest, with the destination id as associated data. */
  sealer: Sealer;
  checks: DestinationChecks;
  /** The transformations room's lookup (a destination's transformation_id). */
  transformationExists?(organizationId: string, transformationId: string): Promise<boolean>;
  routesChanged(): void;
  /** Destinations one bridge may hold (`bridge_max_destinations`): each costs every ingest. */
  maxDestinations: number;
}

export const tooMany = (deps: BridgesDeps) =>
  `a bridge may hold at most ${deps.maxDestinations} destinations`;

export const failIf = (errors: FieldErrors) => {
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
};

/** A new destination and, for http, its secret in clear (shown once) and sealed (stored). */
export function buildDestination(bridge: Bridge, settings: DestinationSettings, deps: BridgesDeps) {
  const now = isoAt(deps.clock.now());
  const destination: Destination = {
    ...settings,
    id: deps.ids.uuid(),
    bridgeId: bridge.id,
    organizationId: bridge.organizationId,
    createdAt: now,
    updatedAt: now,
  };
  const secret = settings.type === "http" ? generateSigningSecret() : null;
  const added: NewDestination = {
    destination,
    sealedSecret: secret ? deps.sealer.seal(secret, destination.id) : null,
  };
  return { added, secret };
}

/** The destination as the answer shows it: its secret in clear this once. */
export function viewOf({ added, secret }: ReturnType<typeof buildDestination>): DestinationView {
  const view: DestinationView = presentDestination(added.destination);
  if (secret) view.signing_secret = secret;
  return view;
}

/** The source a bridge create names: an existing one (`source_id`) or a new one (`source`). */
async function bridgeSource(
  organizationId: string,
  raw: Record<string, unknown>,
  deps: BridgesDeps,
) {
  const errors: FieldErrors = {};
  if (raw.source_id !== undefined) {
    const source =
      typeof raw.source_id === "string"
        ? await deps.sources.find(organizationId, raw.source_id)
        : null;
    if (!source) errors.source_id = ["names no source of this organization"];
    return { source, errors, isNew: false };
  }
  if (raw.source === undefined) {
    errors.source = ["is required: {name, type} or source_id"];
    return { source: null, errors, isNew: false };
  }
  const input = parseSourceInput(raw.source, "source.");
  if (Object.keys(input.errors).length > 0)
    return { source: null, errors: input.errors, isNew: false };
  return { source: newSource(organizationId, input, deps), errors, isNew: true };
}

/** POST /bridges: the bridge, its (new or named) source and destinations in one transaction. */
export async function createBridge(organizationId: string, body: unknown, deps: BridgesDeps) {
  const raw = asObject(body);
  const list = raw.destinations ?? [];
  const checks = await checksFor(organizationId, Array.isArray(list) ? list : [], deps);
  const errors: FieldErrors = {};
  const name = checkName(raw.name, "name", errors);
  const picked = await bridgeSource(organizationId, raw, deps);
  Object.assign(errors, picked.errors);
  const parsed: DestinationSettings[] = [];
  if (!Array.isArray(list)) errors.destinations = ["must be an array of destinations"];
  else if (list.length > deps.maxDestinations) errors.destinations = [tooMany(deps)];
  else {
    list.forEach((item, i) => {
      const result = parseDestination(item, checks, `destinations[${i}].`);
      Object.assign(errors, result.errors);
      parsed.push(result.settings);
    });
  }
  failIf(bodyProblems(BridgeCreateBody, body, errors));
  const source = picked.source as Source;
  const now = isoAt(deps.clock.now());
  const bridge: Bridge = {
    id: deps.ids.uuid(),
    organizationId,
    sourceId: source.id,
    name,
    status: "active",
    createdAt: now,
    updatedAt: now,
  };
  const built = parsed.map((settings) => buildDestination(bridge, settings, deps));
  const stored = await deps.bridges.createBridge(
    bridge,
    built.map((b) => b.added),
    picked.isNew ? source : null,
  );
  if (!stored) throw routingErrors.sourceNameTaken();
  deps.routesChanged();
  return presentBridge(bridge, built.map(viewOf));
}

export async function requireBridge(
  organizationId: string,
  id: string,
  deps: BridgesDeps,
): Promise<Bridge> {
  const bridge = await deps.bridges.findBridge(organizationId, id);
  if (!bridge) throw notFound();
  return bridge;
}

const bridgeView = async (bridge: Bridge, deps: BridgesDeps) =>
  presentBridge(bridge, (await deps.bridges.destinationsOf([bridge.id])).map(presentDestination));

export async function getBridge(organizationId: string, id: string, deps: BridgesDeps) {
  return bridgeView(await requireBridge(organizationId, id, deps), deps);
}

export async function listBridges(organizationId: string, deps: BridgesDeps) {
  const bridges = await deps.bridges.listBridges(organizationId);
  const destinations = await deps.bridges.destinationsOf(bridges.map((b) => b.id));
  return bridges.map((b) =>
    presentBridge(b, destinations.filter((d) => d.bridgeId === b.id).map(presentDestination)),
  );
}

/** PUT/PATCH `{name?, status?}`: renames, pauses or resumes (no replay of paused events). */
export async function updateBridge(
  organizationId: string,
  id: string,
  body: unknown,
  deps: BridgesDeps,
) {
  const bridge = await requireBridge(organizationId, id, deps);
  const raw = asObject(body);
  const errors: FieldErrors = {};
  const name = raw.name === undefined ? bridge.name : checkName(raw.name, "name", errors);
  const status = raw.status ?? bridge.status;
  if (status !== "active" && status !== "paused") errors.status = ["must be active or paused"];
  if (raw.name === undefined && raw.status === undefined)
    errors.status = ["name or status is required"];
  failIf(bodyProblems(BridgeUpdateBody, body, errors));
  const updated: Bridge = {
    ...bridge,
    name,
    status: status as Bridge["status"],
    updatedAt: isoAt(deps.clock.now()),
  };
  await deps.bridges.updateBridge(updated);
  deps.routesChanged();
  return bridgeView(updated, deps);
}

export async function deleteBridge(
  organizationId: string,
  id: string,
  deps: BridgesDeps,
): Promise<void> {
  if (!(await deps.bridges.removeBridge(organizationId, id))) throw notFound();
  deps.routesChanged();
}

/**
 * The destination checks of one organization: its transformations are the ones it may name.
 * The transformations the destinations name are looked up first, so parsing stays synchronous.
 */
export async function checksFor(
  organizationId: string,
  destinations: readonly unknown[],
  deps: BridgesDeps,
): Promise<DestinationChecks> {
  const named = new Set<string>();
  for (const destination of destinations) {
    const id = asObject(destination).transformation_id;
    if (typeof id === "string") named.add(id);
  }
  const existing = new Set<string>();
  for (const id of named) {
    if (await deps.transformationExists?.(organizationId, id)) existing.add(id);
  }
  return { ...deps.checks, transformationExists: (id) => existing.has(id) };
}
