import type { DbHandle } from "../db/db.tx.ts";
import type { Destination, DestinationSettings } from "./destinations.model.ts";

export type BridgeStatus = "active" | "paused";

export interface Bridge {
  id: string;
  organizationId: string;
  sourceId: string;
  name: string;
  status: BridgeStatus;
  createdAt: string;
  updatedAt: string;
}

/** The sealed signing secrets of a destination, as stored. */
export interface SealedSecrets {
  current: string | null;
  previous: string | null;
  previousUntil: number | null;
}

export interface BridgeRow {
  id: string;
  organization_id: string;
  source_id: string;
  name: string;
  status: BridgeStatus;
  created_at: string;
  updated_at: string;
}

export interface DestinationRow {
  id: string;
  bridge_id: string;
  organization_id: string;
  name: string;
  type: Destination["type"];
  priority: Destination["priority"];
  url: string | null;
  method: string | null;
  headers: string | null;
  max_retries: number;
  webhook_url: string | null;
  bot_token: string | null;
  chat_id: string | null;
  filters: string;
  transformation_id: string | null;
  path_forwarding: number;
  signing_secret: string | null;
  previous_signing_secret: string | null;
  previous_secret_until: number | null;
  created_at: string;
  updated_at: string;
}

export const toBridge = (row: BridgeRow): Bridge => ({
  id: row.id,
  organizationId: row.organization_id,
  sourceId: row.source_id,
  name: row.name,
  status: row.status,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const toDestination = (row: DestinationRow): Destination => ({
  id: row.id,
  bridgeId: row.bridge_id,
  organizationId: row.organization_id,
  name: row.name,
  type: row.type,
  priority: row.priority,
  url: row.url,
  method: row.method,
  headers: row.headers ? (JSON.parse(row.headers) as Record<string, string>) : null,
  maxRetries: row.max_retries,
  webhookUrl: row.webhook_url,
  botToken: row.bot_token,
  chatId: row.chat_id,
  filters: JSON.parse(row.filters) as unknown[],
  transformationId: row.transformation_id,
  pathForwarding: row.path_forwarding !== 0,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const settingsValues = (s: DestinationSettings) => [
  s.name,
  s.type,
  s.priority,
  s.url,
  s.method,
  s.headers ? JSON.stringify(s.headers) : null,
  s.maxRetries,
  s.webhookUrl,
  s.botToken,
  s.chatId,
  JSON.stringify(s.filters),
  s.transformationId,
  s.pathForwarding ? 1 : 0,
];

/** A destination with the names of its bridge and source, as an issue or an alert shows them. */
export interface DestinationDescription {
  destinationId: string;
  organizationId: string;
  bridgeId: string;
  bridgeName: string;
  sourceName: string;
  destinationName: string;
  destinationType: Destination["type"];
  destinationPriority: Destination["priority"];
}

interface DescriptionRow {
  id: string;
  organization_id: string;
  bridge_id: string;
  bridge_name: string;
  source_name: string;
  name: string;
  type: Destination["type"];
  priority: Destination["priority"];
}

/** All SQL of bridges and their destinations. */
export function createBridgesRepo(db: DbHandle) {
  const { sqlite } = db;
  const insertBridge = sqlite.prepare(
    `INSERT INTO bridges (id, organization_id, source_id, name, status, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const bridgeById = sqlite.prepare<BridgeRow, [string, string]>(
    "SELECT * FROM bridges WHERE id = ? AND organization_id = ?",
  );
  const bridgeByAnyId = sqlite.prepare<BridgeRow, [string]>("SELECT * FROM bridges WHERE id = ?");
  const bridgesOfOrg = sqlite.prepare<BridgeRow, [string]>(
    "SELECT * FROM bridges WHERE organization_id = ? ORDER BY created_at DESC, id DESC",
  );
  const bridgesOfSource = sqlite.prepare<BridgeRow, [string]>(
    "SELECT * FROM bridges WHERE source_id = ? ORDER BY created_at, id",
  );
  const updateBridge = sqlite.prepare(
    "UPDATE bridges SET name = ?, status = ?, updated_at = ? WHERE id = ?",
  );
  const removeBridge = sqlite.prepare("DELETE FROM bridges WHERE id = ? AND organization_id = ?");
  const destinationsOfOrganization = sqlite.prepare<DestinationRow, [string]>(
    // Through bridges: their organization index, then each bridge's destinations by index.
    `SELECT d.* FROM bridges b JOIN destinations d ON d.bridge_id = b.id
     WHERE b.organization_id = ? ORDER BY d.created_at, d.id`,
  );
  const insertDestination = sqlite.prepare(
    `INSERT INTO destinations (id, bridge_id, organization_id, name, type, priority, url, method, headers,
       max_retries, webhook_url, bot_token, chat_id, filters, transformation_id, path_forwarding,
       signing_secret, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const destinationsOfBridges = (ids: readonly string[]) =>
    ids.length === 0
      ? []
      : sqlite
          .prepare<DestinationRow, string[]>(
            `SELECT * FROM destinations WHERE bridge_id IN (${ids.map(() => "?").join(",")})
             ORDER BY created_at, id`,
          )
          .all(...ids);
  const destinationById = sqlite.prepare<DestinationRow, [string, string]>(
    "SELECT * FROM destinations WHERE id = ? AND bridge_id = ?",
  );
  const destinationByAnyId = sqlite.prepare<DestinationRow, [string]>(
    "SELECT * FROM destinations WHERE id = ?",
  );
  const updateDestination = sqlite.prepare(
    `UPDATE destinations SET name = ?, type = ?, priority = ?, url = ?, method = ?, headers = ?,
       max_retries = ?, webhook_url = ?, bot_token = ?, chat_id = ?, filters = ?,
       transformation_id = ?, path_forwarding = ?, updated_at = ? WHERE id = ?`,
  );
  const updateSecrets = sqlite.prepare(
    `UPDATE destinations SET signing_secret = ?, previous_signing_secret = ?,
       previous_secret_until = ?, updated_at = ? WHERE id = ?`,
  );
  const describeById = sqlite.prepare<DescriptionRow, [string]>(
    // Scalar subqueries, not a JOIN: measured ~10x cheaper per call through bun:sqlite, and this
    // runs for every failed delivery attempt (scripts/bench/issues.ts).
    `SELECT d.id, d.organization_id, d.bridge_id, d.name, d.type, d.priority,
       (SELECT b.name FROM bridges b WHERE b.id = d.bridge_id) AS bridge_name,
       (SELECT s.name FROM bridges b JOIN sources s ON s.id = b.source_id
         WHERE b.id = d.bridge_id) AS source_name
     FROM destinations d WHERE d.id = ?`,
  );
  const removeDestination = sqlite.prepare(
    "DELETE FROM destinations WHERE id = ? AND bridge_id = ?",
  );
  return {
    insertBridge(b: Bridge): void {
      insertBridge.run(
        b.id,
        b.organizationId,
        b.sourceId,
        b.name,
        b.status,
        b.createdAt,
        b.updatedAt,
      );
    },
    findBridge(organizationId: string, id: string): Bridge | null {
      const row = bridgeById.get(id, organizationId);
      return row ? toBridge(row) : null;
    },
    findBridgeById(id: string): Bridge | null {
      const row = bridgeByAnyId.get(id);
      return row ? toBridge(row) : null;
    },
    listBridges(organizationId: string): Bridge[] {
      return bridgesOfOrg.all(organizationId).map(toBridge);
    },
    bridgesOfSource(sourceId: string): Bridge[] {
      return bridgesOfSource.all(sourceId).map(toBridge);
    },
    updateBridge(b: Bridge): void {
      updateBridge.run(b.name, b.status, b.updatedAt, b.id);
    },
    removeBridge(organizationId: string, id: string): boolean {
      return removeBridge.run(id, organizationId).changes > 0;
    },
    insertDestination(d: Destination, sealedSecret: string | null): void {
      insertDestination.run(
        d.id,
        d.bridgeId,
        d.organizationId,
        ...settingsValues(d),
        sealedSecret,
        d.createdAt,
        d.updatedAt,
      );
    },
    /** Every destination of the organization (what a secret or transformation is used by). */
    destinationsOfOrganization(organizationId: string): Destination[] {
      return destinationsOfOrganization.all(organizationId).map(toDestination);
    },
    destinationsOf(bridgeIds: readonly string[]): Destination[] {
      return destinationsOfBridges(bridgeIds).map(toDestination);
    },
    findDestination(bridgeId: string, id: string): Destination | null {
      const row = destinationById.get(id, bridgeId);
      return row ? toDestination(row) : null;
    },
    /** A destination and its sealed secrets, by id alone (sending needs no organization). */
    findDestinationWithSecrets(
      id: string,
    ): { destination: Destination; secrets: SealedSecrets } | null {
      const row = destinationByAnyId.get(id);
      if (!row) return null;
      return {
        destination: toDestination(row),
        secrets: {
          current: row.signing_secret,
          previous: row.previous_signing_secret,
          previousUntil: row.previous_secret_until,
        },
      };
    },
    /** A destination by id alone, with its bridge's and source's names (null: it is gone). */
    describeDestination(id: string): DestinationDescription | null {
      const row = describeById.get(id);
      if (!row) return null;
      return {
        destinationId: row.id,
        organizationId: row.organization_id,
        bridgeId: row.bridge_id,
        bridgeName: row.bridge_name,
        sourceName: row.source_name,
        destinationName: row.name,
        destinationType: row.type,
        destinationPriority: row.priority,
      };
    },
    updateDestination(d: Destination): void {
      updateDestination.run(...settingsValues(d), d.updatedAt, d.id);
    },
    updateSecrets(id: string, secrets: SealedSecrets, updatedAt: string): void {
      updateSecrets.run(secrets.current, secrets.previous, secrets.previousUntil, updatedAt, id);
    },
    removeDestination(bridgeId: string, id: string): boolean {
      return removeDestination.run(id, bridgeId).changes > 0;
    },
  };
}

export type BridgesRepo = ReturnType<typeof createBridgesRepo>;
