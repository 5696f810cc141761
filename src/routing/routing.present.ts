import { presentVerification } from "../verification/verification.settings.ts";
import type { Bridge } from "./bridges.repo.ts";
import type { Destination } from "./destinations.model.ts";
import { ingestUrl, type Source } from "./sources.model.ts";

/** A source as the API shows it (decisions.md §8). */
export function presentSource(source: Source, baseUrl: string) {
  return {
    id: source.id,
    name: source.name,
    type: source.type,
    slug: source.slug,
    ingest_url: ingestUrl(baseUrl, source.slug),
    deduplication_config: source.deduplicationConfig,
    verification: presentVerification(source.verification),
    created_at: source.createdAt,
    updated_at: source.updatedAt,
  };
}

/** A destination as the API shows it: templates verbatim, never a signing secret. */
export function presentDestination(d: Destination) {
  return {
    id: d.id,
    bridge_id: d.bridgeId,
    name: d.name,
    type: d.type,
    priority: d.priority,
    url: d.url,
    method: d.method,
    headers: d.headers,
    max_retries: d.maxRetries,
    webhook_url: d.webhookUrl,
    bot_token: d.botToken,
    chat_id: d.chatId,
    filters: d.filters,
    transformation_id: d.transformationId,
    path_forwarding: d.type === "http" ? d.pathForwarding : null,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
  };
}

export type DestinationView = ReturnType<typeof presentDestination> & { signing_secret?: string };

/** A bridge with its destinations (decisions.md §8). */
export function presentBridge(bridge: Bridge, destinations: DestinationView[]) {
  return {
    id: bridge.id,
    name: bridge.name,
    status: bridge.status,
    source_id: bridge.sourceId,
    destinations,
    created_at: bridge.createdAt,
    updated_at: bridge.updatedAt,
  };
}
