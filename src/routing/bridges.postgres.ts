import type { PostgresDb, PostgresSql, PostgresTx } from "../db/db.postgres-handle.ts";
import {
  type BridgeRow,
  type DestinationDescription,
  type DestinationRow,
  settingsValues,
  toBridge,
  toDestination,
} from "./bridges.repo.ts";
import type { BridgesStore, NewDestination } from "./bridges.store.ts";
import { insertSourcePostgres } from "./sources.postgres.ts";

/** A destination row as Bun's client reads it: bigint columns arrive as strings. */
const destinationOf = (row: Record<string, unknown>) =>
  toDestination(row as unknown as DestinationRow);
const bridgeOf = (row: Record<string, unknown>) => toBridge(row as unknown as BridgeRow);
const untilOf = (value: unknown) => (value === null || value === undefined ? null : Number(value));

async function insertDestination(sql: PostgresSql | PostgresTx, added: NewDestination) {
  const d = added.destination;
  const [name, type, priority, url, method, headers, maxRetries, webhookUrl, botToken, chatId] =
    settingsValues(d);
  const [filters, transformationId, pathForwarding] = settingsValues(d).slice(10);
  await sql`
    INSERT INTO destinations (id, bridge_id, organization_id, name, type, priority, url, method,
      headers, max_retries, webhook_url, bot_token, chat_id, filters, transformation_id,
      path_forwarding, signing_secret, created_at, updated_at)
    VALUES (${d.id}, ${d.bridgeId}, ${d.organizationId}, ${name}, ${type}, ${priority}, ${url},
      ${method}, ${headers}, ${maxRetries}, ${webhookUrl}, ${botToken}, ${chatId}, ${filters},
      ${transformationId}, ${pathForwarding}, ${added.sealedSecret}, ${d.createdAt}, ${d.updatedAt})`;
}

/**
 * A destination by id alone with its bridge's and source's names, through the client or inside
 * a transaction (the issues room's grouping, in the attempt's transaction); null: it is gone.
 */
export async function describeDestinationPostgres(
  sql: PostgresSql | PostgresTx,
  id: string,
): Promise<DestinationDescription | null> {
  const [row] = await sql`
    SELECT d.id, d.organization_id, d.bridge_id, d.name, d.type, d.priority,
      b.name AS bridge_name, s.name AS source_name
    FROM destinations d JOIN bridges b ON b.id = d.bridge_id JOIN sources s ON s.id = b.source_id
    WHERE d.id = ${id}`;
  if (!row) return null;
  return {
    destinationId: row.id as string,
    organizationId: row.organization_id as string,
    bridgeId: row.bridge_id as string,
    bridgeName: row.bridge_name as string,
    sourceName: row.source_name as string,
    destinationName: row.name as string,
    destinationType: row.type,
    destinationPriority: row.priority,
  };
}

/**
 * The bridges' store over PostgreSQL. A bridge with a new source is one transaction whose
 * source insert the unique (organization, name) index decides, as on SQLite; adding a
 * destination locks its bridge row so two concurrent adds count one after the other.
 */
export function createBridgesPostgresStore(pg: PostgresDb): BridgesStore {
  const { sql } = pg;
  return {
    createBridge: (bridge, destinations, newSource) =>
      sql.begin(async (tx) => {
        if (newSource && !(await insertSourcePostgres(tx, newSource))) return false;
        await tx`
          INSERT INTO bridges (id, organization_id, source_id, name, status, created_at, updated_at)
          VALUES (${bridge.id}, ${bridge.organizationId}, ${bridge.sourceId}, ${bridge.name},
            ${bridge.status}, ${bridge.createdAt}, ${bridge.updatedAt})`;
        for (const added of destinations) await insertDestination(tx, added);
        return true;
      }),
    findBridge: async (organizationId, id) => {
      const [row] =
        await sql`SELECT * FROM bridges WHERE id = ${id} AND organization_id = ${organizationId}`;
      return row ? bridgeOf(row) : null;
    },
    listBridges: async (organizationId) =>
      (
        await sql`SELECT * FROM bridges WHERE organization_id = ${organizationId}
                  ORDER BY created_at DESC, id DESC`
      ).map(bridgeOf),
    bridgesOfSource: async (sourceId) =>
      (await sql`SELECT * FROM bridges WHERE source_id = ${sourceId} ORDER BY created_at, id`).map(
        bridgeOf,
      ),
    updateBridge: async (bridge) => {
      await sql`UPDATE bridges SET name = ${bridge.name}, status = ${bridge.status},
                  updated_at = ${bridge.updatedAt} WHERE id = ${bridge.id}`;
    },
    removeBridge: async (organizationId, id) =>
      (
        await sql`DELETE FROM bridges WHERE id = ${id} AND organization_id = ${organizationId}
                  RETURNING id`
      ).length > 0,
    addDestination: (added, max) =>
      sql.begin(async (tx) => {
        const bridgeId = added.destination.bridgeId;
        const [bridge] = await tx`SELECT id FROM bridges WHERE id = ${bridgeId} FOR UPDATE`;
        if (!bridge) return false;
        const [held] =
          await tx`SELECT count(*) AS n FROM destinations WHERE bridge_id = ${bridgeId}`;
        if (Number(held?.n) >= max) return false;
        await insertDestination(tx, added);
        return true;
      }),
    destinationsOfOrganization: async (organizationId) =>
      (
        await sql`SELECT d.* FROM bridges b JOIN destinations d ON d.bridge_id = b.id
                  WHERE b.organization_id = ${organizationId} ORDER BY d.created_at, d.id`
      ).map(destinationOf),
    destinationsOf: async (bridgeIds) =>
      bridgeIds.length === 0
        ? []
        : (
            await sql`SELECT * FROM destinations WHERE bridge_id IN ${sql([...bridgeIds])}
                      ORDER BY created_at, id`
          ).map(destinationOf),
    findDestination: async (bridgeId, id) => {
      const [row] =
        await sql`SELECT * FROM destinations WHERE id = ${id} AND bridge_id = ${bridgeId}`;
      return row ? destinationOf(row) : null;
    },
    findDestinationWithSecrets: async (id) => {
      const [row] = await sql`SELECT * FROM destinations WHERE id = ${id}`;
      if (!row) return null;
      return {
        destination: destinationOf(row),
        secrets: {
          current: (row.signing_secret as string | null) ?? null,
          previous: (row.previous_signing_secret as string | null) ?? null,
          previousUntil: untilOf(row.previous_secret_until),
        },
      };
    },
    describeDestination: (id) => describeDestinationPostgres(sql, id),
    updateDestination: async (d) => {
      const [name, type, priority, url, method, headers, maxRetries, webhookUrl, botToken, chatId] =
        settingsValues(d);
      const [filters, transformationId, pathForwarding] = settingsValues(d).slice(10);
      await sql`
        UPDATE destinations SET name = ${name}, type = ${type}, priority = ${priority}, url = ${url},
          method = ${method}, headers = ${headers}, max_retries = ${maxRetries},
          webhook_url = ${webhookUrl}, bot_token = ${botToken}, chat_id = ${chatId},
          filters = ${filters}, transformation_id = ${transformationId},
          path_forwarding = ${pathForwarding}, updated_at = ${d.updatedAt}
        WHERE id = ${d.id}`;
    },
    rotateSecret: async (id, sealed, previousUntil, updatedAt) => {
      // SET reads the row as it was: the replaced secret moves to previous in the same statement.
      await sql`
        UPDATE destinations SET signing_secret = ${sealed},
          previous_signing_secret = signing_secret,
          previous_secret_until = CASE WHEN signing_secret IS NULL THEN NULL
            ELSE ${previousUntil}::bigint END,
          updated_at = ${updatedAt}
        WHERE id = ${id}`;
    },
    removeDestination: async (bridgeId, id) =>
      (
        await sql`DELETE FROM destinations WHERE id = ${id} AND bridge_id = ${bridgeId} RETURNING id`
      ).length > 0,
  };
}
