import { useState } from "preact/hooks";
import { downloadBytes } from "../kit/clipboard.ts";
import type { Api } from "../lib/api.ts";
import { errorText } from "../lib/api.ts";
import { useApp } from "../lib/context.ts";
import type { CapturedRequest, Endpoint, Page } from "../lib/types.ts";
import { toHar, toJsonExport } from "./export.ts";

/** An export reads at most this many requests (newest first), in pages of 100. */
export const EXPORT_LIMIT = 10_000;
const PAGE_SIZE = 100;

/** Every request of `query` (the list's filter), newest first, up to EXPORT_LIMIT. */
async function readAll(api: Api, endpointId: string, query: string): Promise<CapturedRequest[]> {
  const all: CapturedRequest[] = [];
  for (let page = 1; all.length < EXPORT_LIMIT; page++) {
    const sep = query ? `${query}&` : "";
    const result = await api.get<Page<CapturedRequest>>(
      `/api/v1/endpoints/${endpointId}/requests?${sep}page=${page}&page_size=${PAGE_SIZE}`,
    );
    all.push(...result.data);
    if (result.data.length < PAGE_SIZE || all.length >= result.total) break;
  }
  return all.slice(0, EXPORT_LIMIT);
}

async function save(
  api: Api,
  endpoint: Endpoint,
  requests: CapturedRequest[],
  format: "json" | "har",
  name: string,
) {
  const stamp = new Date().toISOString();
  const text =
    format === "har"
      ? toHar(requests, endpoint, await serverVersion(api))
      : toJsonExport(requests, endpoint, stamp);
  const fileName = `weir-${endpoint.slug}-${name}-${stamp.slice(0, 19).replace(/:/g, "")}.${format}`;
  downloadBytes(new TextEncoder().encode(text), fileName, "application/json");
}

async function serverVersion(api: Api): Promise<string> {
  try {
    return (await api.get<{ version: string }>("/healthz")).version;
  } catch {
    return "unknown";
  }
}

/**
 * Export of the list as it is filtered (or the whole endpoint, newest first, up to 10,000) as
 * JSON or HAR 1.2.
 */
export function ExportMenu(props: { endpoint: Endpoint; query: string; count: number }) {
  const { api, notify } = useApp();
  const [busy, setBusy] = useState(false);
  async function run(format: "json" | "har") {
    setBusy(true);
    try {
      const requests = await readAll(api, props.endpoint.id, props.query);
      await save(api, props.endpoint, requests, format, props.query ? "filtered" : "all");
      notify(`Exported ${requests.length.toLocaleString()} requests as ${format.toUpperCase()}.`);
    } catch (e) {
      notify(`Export failed: ${errorText(e)}`);
    } finally {
      setBusy(false);
    }
  }
  const what = props.query ? "the matching requests" : "all requests";
  return (
    <fieldset class="export-menu" disabled={busy || props.count === 0}>
      <legend class="small muted">
        Export {what}
        {props.count > EXPORT_LIMIT ? ` (newest ${EXPORT_LIMIT.toLocaleString()})` : ""}
      </legend>
      <button type="button" class="button small" onClick={() => run("json")}>
        JSON
      </button>
      <button type="button" class="button small" onClick={() => run("har")}>
        HAR
      </button>
    </fieldset>
  );
}

/** Export of one request (the selected one) as JSON or HAR 1.2. */
export function ExportOne(props: { endpoint: Endpoint; request: CapturedRequest }) {
  const { api } = useApp();
  return (
    <>
      <button
        type="button"
        class="button small"
        onClick={() => save(api, props.endpoint, [props.request], "json", props.request.id)}
      >
        Export JSON
      </button>
      <button
        type="button"
        class="button small"
        onClick={() => save(api, props.endpoint, [props.request], "har", props.request.id)}
      >
        Export HAR
      </button>
    </>
  );
}
