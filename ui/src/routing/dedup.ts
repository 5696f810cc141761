/** A dedup strategy as the form offers it; "" is off. */
export type Strategy = "" | "body_path" | "include_fields" | "exclude_fields";

/** The form's fields as the API's `deduplication_config` (null: off). */
export function dedupSettings(strategy: Strategy, paths: string, ttl: string) {
  if (!strategy) return null;
  const list = paths
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  return {
    enabled: true,
    [strategy]: strategy === "body_path" ? paths.trim() : list,
    ttl_seconds: Number(ttl),
  };
}

/** A listed event's body as the text it was received as (lists send binary bodies as base64). */
export function bodyText(request: { body: string; body_encoding: "utf8" | "base64" }): string {
  if (request.body_encoding === "utf8") return request.body;
  const bytes = Uint8Array.from(atob(request.body), (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

/** Every message of a 422 as "field: message", for the check beside the form. */
export function checkErrors(errors: Record<string, string[]>): string[] {
  return Object.entries(errors).flatMap(([key, messages]) => messages.map((m) => `${key}: ${m}`));
}
