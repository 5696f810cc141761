/** The text forms of config values, both ways: what the per-type fields edit. */

export type Draft = Record<string, string>;
export type Built = { config: Record<string, unknown> } | { errors: Record<string, string[]> };

/** Pretty JSON for an editable field ("" for nothing). */
export const jsonText = (value: unknown) =>
  value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value, null, 2);

/** `{"a": 1}` parsed; a field error naming `field` otherwise. */
export function parseJsonField(
  text: string,
  field: string,
): { value: unknown } | { errors: Record<string, string[]> } {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return { errors: { [field]: ["Not valid JSON."] } };
  }
}

/** JSON when the text is an object, array, number or boolean; the text itself otherwise. */
export function jsonOrText(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed) return "";
  try {
    return JSON.parse(trimmed);
  } catch {
    return text;
  }
}

export const headerLines = (headers: unknown) =>
  Object.entries((headers ?? {}) as Record<string, string>)
    .map(([name, value]) => `${name}: ${value}`)
    .join("\n");

/** "Name: value" lines → headers, or the error naming the first bad line. */
export function parseHeaders(
  text: string,
  field: string,
): { headers: Record<string, string> } | { errors: Record<string, string[]> } {
  const headers: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? "").trim();
    if (!line) continue;
    const colon = line.indexOf(":");
    if (colon < 1) return { errors: { [field]: [`Line ${i + 1} is not “Name: value”.`] } };
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return { headers };
}
