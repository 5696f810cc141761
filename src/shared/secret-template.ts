/**
 * `{{NAME}}` references to an organization's secrets in destination and channel settings
 * (decisions.md §8): replaced at send time, never when saved, so reads show the template as
 * written. Names follow the secrets' own rule, `^[A-Z][A-Z0-9_]*$`.
 */
export const SECRET_NAME = /^[A-Z][A-Z0-9_]*$/;
const REFERENCE = /\{\{\s*([A-Z][A-Z0-9_]*)\s*\}\}/g;

/** The secret names a text refers to, in order of first use. */
export function secretReferences(text: string): string[] {
  // Most settings name no secret: every delivery asks, so the common answer costs one scan.
  if (!text.includes("{{")) return [];
  return [...new Set([...text.matchAll(REFERENCE)].map((match) => match[1] as string))];
}

export type Substituted = { ok: true; text: string } | { ok: false; missing: string };

/** Replaces every reference; the first name `lookup` does not know makes the whole send fail. */
export function substituteSecrets(
  text: string,
  lookup: (name: string) => string | undefined,
): Substituted {
  if (!text.includes("{{")) return { ok: true, text };
  for (const name of secretReferences(text)) {
    if (lookup(name) === undefined) return { ok: false, missing: name };
  }
  return { ok: true, text: text.replace(REFERENCE, (_, name: string) => lookup(name) ?? "") };
}

/**
 * What to hide once these texts were filled in: each referenced secret's value, shown as its
 * `{{NAME}}` (names `lookup` does not know have no value to hide).
 */
export function secretConcealments(
  texts: readonly (string | null | undefined)[],
  lookup: (name: string) => string | undefined,
): [string, string][] {
  const names = new Set(texts.flatMap((text) => (text ? secretReferences(text) : [])));
  const pairs: [string, string][] = [];
  for (const name of names) {
    const value = lookup(name);
    if (value) pairs.push([value, `{{${name}}}`]);
  }
  return pairs;
}
