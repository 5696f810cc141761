/**
 * `weir monitors import` (decisions.md §13): a file of monitors turned into create bodies. A
 * JSON list holds bodies as the API takes them; a Gatus configuration's `endpoints:` are mapped
 * condition by condition, and what has no counterpart is reported, never silently dropped.
 */

/**
 * One monitor to create, or why an entry was skipped, with notes on what was left out. A push
 * monitor may bring the token its senders already use (`pushToken`).
 */
export type ImportEntry =
  | { name: string; body: Record<string, unknown>; notes: string[]; pushToken?: string }
  | { name: string; skipped: string };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Reads the parsed file: a JSON list of monitor bodies, or an object with Gatus `endpoints`. */
export function importEntries(parsed: unknown): ImportEntry[] {
  if (Array.isArray(parsed)) {
    return parsed.map((item, i) =>
      isRecord(item)
        ? { name: String(item.name ?? `#${i + 1}`), body: item, notes: [] }
        : { name: `#${i + 1}`, skipped: "not an object" },
    );
  }
  if (isRecord(parsed) && Array.isArray(parsed.endpoints)) {
    return parsed.endpoints.map((endpoint, i) =>
      isRecord(endpoint) ? fromGatus(endpoint) : { name: `#${i + 1}`, skipped: "not an object" },
    );
  }
  throw new Error("expected a JSON list of monitors or a Gatus file with endpoints:");
}

/** Gatus durations: `30s`, `5m`, `1h` (and combinations such as `1m30s`). */
export function durationSeconds(text: unknown): number | null {
  if (typeof text !== "string") return null;
  const parts = [...text.matchAll(/(\d+)(h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== text.trim()) return null;
  const unit = { h: 3600, m: 60, s: 1 } as const;
  return parts.reduce((sum, p) => sum + Number(p[1]) * unit[p[2] as keyof typeof unit], 0);
}

function fromGatus(endpoint: Record<string, unknown>): ImportEntry {
  const name = String(endpoint.name ?? endpoint.url ?? "unnamed");
  const url = typeof endpoint.url === "string" ? endpoint.url : "";
  const notes: string[] = [];
  const body: Record<string, unknown> = { name };
  const interval = durationSeconds(endpoint.interval ?? "60s");
  if (interval !== null) body.interval_seconds = Math.max(10, interval);
  if (isRecord(endpoint.dns)) {
    Object.assign(body, {
      type: "dns",
      hostname: endpoint.dns["query-name"],
      record_type: endpoint.dns["query-type"] ?? "A",
    });
  } else if (/^icmp:\/\/[^/]+$/.test(url)) {
    Object.assign(body, { type: "ping", hostname: url.slice("icmp://".length) });
  } else if (url.startsWith("tcp://")) {
    Object.assign(body, { type: "tcp", url });
  } else if (/^https?:\/\//.test(url)) {
    Object.assign(body, { type: "http", url });
    if (typeof endpoint.method === "string") body.method = endpoint.method;
    if (isRecord(endpoint.headers)) body.headers = endpoint.headers;
    if (typeof endpoint.body === "string") body.body = endpoint.body;
  } else {
    return {
      name,
      skipped: `url ${url || "(none)"} is not http(s)://, tcp:// or icmp://, nor a dns check`,
    };
  }
  if (typeof endpoint.group === "string" && endpoint.group.trim() !== "") {
    body.group = endpoint.group.trim();
  }
  if (endpoint.enabled === false) body.paused = true;
  const conditions = Array.isArray(endpoint.conditions) ? endpoint.conditions : [];
  for (const condition of conditions) {
    if (!applyCondition(String(condition), body)) notes.push(`condition left out: ${condition}`);
  }
  return { name, body, notes };
}

const STATUS = /^\[STATUS\]\s*(==|<=|>=|<|>)\s*(\d{3})$/;
const STATUS_ANY = /^\[STATUS\]\s*==\s*any\(([\d,\s]+)\)$/;
const BODY_PATH = /^\[BODY\]\.(\S+)\s*(==|<=|>=|<|>)\s*(.+)$/;
const BODY_KEYWORD = /^\[BODY\]\s*(==|!=)\s*pat\(\*(.+)\*\)$/;
const BODY_EQUALS = /^\[BODY\]\s*==\s*(.+)$/;
const RESPONSE_TIME = /^\[RESPONSE_TIME\]\s*<=?\s*(\d+)$/;
/** Conditions every monitor of the kind already means. */
const IMPLIED = /^\[(CONNECTED)\]\s*==\s*true$|^\[DNS_RCODE\]\s*==\s*NOERROR$/;

/** Lays one Gatus condition onto the body; false when it has no counterpart. */
function applyCondition(condition: string, body: Record<string, unknown>): boolean {
  const text = condition.trim();
  if (IMPLIED.test(text)) return true;
  const status = STATUS.exec(text);
  if (status) {
    const code = Number(status[2]);
    const ranges: Record<string, string> = {
      "==": `${code}`,
      "<": `100-${code - 1}`,
      "<=": `100-${code}`,
      ">=": `${code}-599`,
      ">": `${code + 1}-599`,
    };
    body.expected_status = ranges[status[1] as string];
    return true;
  }
  const any = STATUS_ANY.exec(text);
  if (any) {
    body.expected_status = (any[1] as string).replace(/\s/g, "");
    return true;
  }
  const time = RESPONSE_TIME.exec(text);
  if (time && body.type === "http") {
    // Weir calls a slow answer degraded (still up), where Gatus calls it a failure.
    body.degraded_after_ms = Number(time[1]);
    return true;
  }
  const keyword = BODY_KEYWORD.exec(text);
  if (keyword && body.type === "http") {
    body.keyword = keyword[2];
    if (keyword[1] === "!=") body.keyword_absent = true;
    return true;
  }
  const path = BODY_PATH.exec(text);
  if (path && body.type === "http") {
    const value = scalarOf((path[3] as string).trim());
    const operators: Record<string, string> = {
      "<": "$lt",
      "<=": "$lte",
      ">": "$gt",
      ">=": "$gte",
    };
    const operator = operators[path[2] as string];
    if (operator && typeof value !== "number") return false;
    body.json_path = path[1];
    body.json_expected = operator ? { [operator]: value } : value;
    return true;
  }
  const equals = BODY_EQUALS.exec(text);
  if (equals && body.type === "dns") {
    body.expected = (equals[1] as string).trim();
    return true;
  }
  return false;
}

/** A Gatus value as JSON would hold it: numbers and booleans typed, the rest text. */
export function scalarOf(text: string): unknown {
  if (text === "true" || text === "false") return text === "true";
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  return text.replace(/^"(.*)"$/, "$1");
}
