/** Elements HTML writes without an end tag. */
const VOID = new Set(["meta", "link", "img", "br", "hr", "input", "source", "wbr"]);

/**
 * The tags of `html` that do not balance (an end tag without its start, or a start tag left
 * open), in order: [] when the document is well formed. Test-side only: a strict reading of
 * what the renderer writes, which never relies on HTML's implied end tags.
 */
export function unbalancedTags(html: string): string[] {
  const open: string[] = [];
  const problems: string[] = [];
  const body = html.replace(/<!DOCTYPE[^>]*>/i, "");
  for (const match of body.matchAll(/<(\/?)([a-zA-Z][a-zA-Z0-9]*)\b[^>]*>/g)) {
    const [, closing, raw] = match;
    const name = (raw ?? "").toLowerCase();
    if (VOID.has(name)) continue;
    if (!closing) open.push(name);
    else if (open.at(-1) === name) open.pop();
    else problems.push(`</${name}> while <${open.at(-1) ?? "nothing"}> is open`);
  }
  return [...problems, ...open.map((name) => `<${name}> never closed`)];
}
