import type { Bridge, DestinationDescription, SealedSecrets } from "./bridges.repo.ts";
import type { Destination } from "./destinations.model.ts";
import type { Source } from "./sources.model.ts";

/** A destination to store, with its sealed signing secret (null: not signed). */
export interface NewDestination {
  destination: Destination;
  sealedSecret: string | null;
}

/**
 * The storage of bridges and their destinations, one implementation per database
 * (bridges.sqlite.ts, bridges.postgres.ts). What an organization asks is scoped to it; the
 * lookups by id alone serve delivery, issues and alerts, which hold a destination's id.
 */
export interface BridgesStore {
  /**
   * Stores the bridge, its destinations and, when given, its new source, all or nothing; false
   * (nothing stored) when the organization already has a source of the new source's name.
   */
  createBridge(
    bridge: Bridge,
    destinations: NewDestination[],
    newSource: Source | null,
  ): Promise<boolean>;
  findBridge(organizationId: string, id: string): Promise<Bridge | null>;
  /** Newest first (created_at, then id, descending). */
  listBridges(organizationId: string): Promise<Bridge[]>;
  /** Oldest first (created_at, then id). */
  bridgesOfSource(sourceId: string): Promise<Bridge[]>;
  /** Stores the bridge's name, status and updated_at. */
  updateBridge(bridge: Bridge): Promise<void>;
  /** Deletes the bridge and its destinations; false when it is not the organization's. */
  removeBridge(organizationId: string, id: string): Promise<boolean>;
  /**
   * Adds a destination unless its bridge holds `max` already (counted in the same transaction,
   * so two concurrent adds never pass the limit); false when full.
   */
  addDestination(added: NewDestination, max: number): Promise<boolean>;
  /** Every destination of the organization, oldest first. */
  destinationsOfOrganization(organizationId: string): Promise<Destination[]>;
  /** The destinations of these bridges, oldest first. */
  destinationsOf(bridgeIds: readonly string[]): Promise<Destination[]>;
  findDestination(bridgeId: string, id: string): Promise<Destination | null>;
  /** A destination and its sealed secrets, by id alone (sending needs no organization). */
  findDestinationWithSecrets(
    id: string,
  ): Promise<{ destination: Destination; secrets: SealedSecrets } | null>;
  /** A destination by id alone, with its bridge's and source's names (null: it is gone). */
  describeDestination(id: string): Promise<DestinationDescription | null>;
  /** Stores the destination's settings and updated_at. */
  updateDestination(destination: Destination): Promise<void>;
  /**
   * Replaces the signing secrets: the current one becomes the previous one, signing until
   * `previousUntil`, in one statement so two concurrent rotations cannot lose a secret.
   */
  rotateSecret(id: string, sealed: string, previousUntil: number, updatedAt: string): Promise<void>;
  removeDestination(bridgeId: string, id: string): Promise<boolean>;
}
