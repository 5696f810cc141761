import type { CapturedRequest } from "../lib/types.ts";

/** The ways a body can be shown; `pretty` views are offered only when the body parses. */
export type BodyView = "json" | "xml" | "form" | "raw" | "hex";

export const BODY_VIEW_LABEL: Record<BodyView, string> = {
  json: "JSON",
  xml: "XML",
  form: "Form fields",
  raw: "Raw",
  hex: "Hex",
};

/** The body's bytes, whatever its transport encoding. */
export function bodyBytes(request: Pick<CapturedRequest, "body" | "body_encoding">): Uint8Array {
  if (request.body_encoding === "base64") {
    const binary = atob(request.body);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }
  return new TextEncoder().encode(request.body);
}

/** The body as text, or null when it is not UTF-8 (then only hex makes sense). */
export function bodyText(request: Pick<CapturedRequest, "body" | "body_encoding">): string | null {
  if (request.body_encoding !== "base64") return request.body;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bodyBytes(request));
  } catch {
    return null;
  }
}

/** Pretty-printed JSON with two-space indents, or null when the text is not JSON. */
export function prettyJson(text: string): string | null {
  const trimmed = text.trim();
  if (!trimmed || !/^[[{"\d\-tfn]/.test(trimmed)) return null;
  try {
    return JSON.stringify(JSON.parse(trimmed), null, 2);
  } catch {
    return null;
  }
}

const XML_TOKEN = /(<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<\?[\s\S]*?\?>|<![^>]*>|<\/?[^>]+>)/g;

/**
 * XML re-indented one element per line (text kept as sent, trimmed), or null when the text
 * does not look like XML or its tags do not balance. A display aid, not a validating parser.
 */
export function prettyXml(text: string): string | null {
  const trimmed = text.trim();
  if (!trimmed.startsWith("<") || !trimmed.endsWith(">")) return null;
  const lines: string[] = [];
  const open: string[] = [];
  const pad = () => "  ".repeat(open.length);
  for (const part of trimmed.split(XML_TOKEN)) {
    const token = part.trim();
    if (!token) continue;
    if (token.startsWith("</")) {
      const name = token.slice(2, -1).trim();
      if (open.pop() !== name) return null;
      const last = lines.length - 1;
      const previous = lines[last] ?? "";
      // <a>text</a> stays on one line.
      if (/^\s*<[^/!?][^>]*>[^<]*$/.test(previous) && previous.trim().startsWith(`<${name}`)) {
        lines[last] = `${previous}${token}`;
      } else lines.push(`${pad()}${token}`);
    } else if (token.startsWith("<") && !/^<[!?]/.test(token) && !token.endsWith("/>")) {
      lines.push(`${pad()}${token}`);
      const name = /^<([^\s/>]+)/.exec(token)?.[1];
      if (!name) return null;
      open.push(name);
    } else if (
      !token.startsWith("<") &&
      lines.length > 0 &&
      /^\s*<[^/!?][^>]*>$/.test(lines[lines.length - 1] ?? "")
    ) {
      lines[lines.length - 1] += token;
    } else lines.push(`${pad()}${token}`);
  }
  return open.length === 0 && lines.length > 0 ? lines.join("\n") : null;
}

/** `a=1&b=two` → ordered pairs, or null when the text is not a form body. */
export function formFields(text: string): [string, string][] | null {
  const trimmed = text.trim();
  if (!trimmed || /[\s{}<>"]/.test(trimmed.replace(/\+/g, "")) || !trimmed.includes("=")) {
    return null;
  }
  return [...new URLSearchParams(trimmed)];
}

/** Classic hex dump: offset, 16 bytes in hex, printable ASCII. Cut after `maxBytes`. */
export function hexDump(bytes: Uint8Array, maxBytes = 64 * 1024): string {
  const rows: string[] = [];
  const end = Math.min(bytes.length, maxBytes);
  for (let offset = 0; offset < end; offset += 16) {
    const chunk = bytes.subarray(offset, Math.min(offset + 16, end));
    const hex = [...chunk].map((b) => b.toString(16).padStart(2, "0"));
    const left = hex.slice(0, 8).join(" ");
    const right = hex.slice(8).join(" ");
    const ascii = [...chunk]
      .map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : "."))
      .join("");
    rows.push(
      `${offset.toString(16).padStart(8, "0")}  ${left.padEnd(23)}  ${right.padEnd(23)}  |${ascii}|`,
    );
  }
  if (bytes.length > end)
    rows.push(`… ${bytes.length - end} more bytes (download the body to see them)`);
  return rows.join("\n");
}

/** The views that make sense for a body, best first: what the UI offers and opens with. */
export function bodyViews(contentType: string | null, text: string | null): BodyView[] {
  if (text === null) return ["hex"];
  if (text === "") return ["raw"];
  const type = (contentType ?? "").toLowerCase();
  const views: BodyView[] = [];
  const json = prettyJson(text) !== null;
  const xml = prettyXml(text) !== null;
  const form = formFields(text) !== null;
  if (type.includes("json") && json) views.push("json");
  if (type.includes("xml") && xml) views.push("xml");
  if (type.includes("x-www-form-urlencoded") && form) views.push("form");
  if (json && !views.includes("json")) views.push("json");
  if (xml && !views.includes("xml")) views.push("xml");
  if (form && !views.includes("form")) views.push("form");
  views.push("raw", "hex");
  return views;
}

/** A download file name for the body, with an extension guessed from its content type. */
export function bodyFileName(requestId: string, contentType: string | null): string {
  const type = (contentType ?? "").toLowerCase();
  const ext = type.includes("json")
    ? "json"
    : type.includes("xml")
      ? "xml"
      : type.includes("x-www-form-urlencoded")
        ? "txt"
        : type.startsWith("text/")
          ? "txt"
          : "bin";
  return `request-${requestId}.${ext}`;
}
