/**
 * Hiding secret values in what Weir stores, logs and shows about a request it sent: the URL, the
 * headers, an error message that quotes the host, an answer that echoes a header. A secret is
 * filled in only on the wire; everywhere else it reads as its `{{NAME}}` or a mask.
 */

/** A text to hide and what to show in its place. */
export type Concealment = readonly [hidden: string, shown: string];

export const MASK = "***";

/**
 * Values shorter than this are left alone: replacing one or two characters everywhere would
 * garble every URL and message while hiding nothing a guess would not find.
 */
const MIN_HIDDEN_LENGTH = 4;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Every form a value takes once it went through a URL or JSON: as written, percent-encoded (a
 * secret in a path or query), JSON-escaped, and, for a secret that is a whole URL, its host alone
 * (what a DNS or connect error quotes). The first concealment of a text wins.
 */
function forms(concealments: readonly Concealment[]): Map<string, string> {
  const shownBy = new Map<string, string>();
  const add = (hidden: string, shown: string) => {
    const key = hidden.toLowerCase();
    if (hidden.length >= MIN_HIDDEN_LENGTH && !shownBy.has(key)) shownBy.set(key, shown);
  };
  for (const [hidden, shown] of concealments) {
    add(hidden, shown);
    add(encodeURIComponent(hidden), shown);
    add(encodeURI(hidden), shown);
    // Inside a JSON string (an answer echoing a header), with or without "/" escaped as "\/".
    const json = JSON.stringify(hidden).slice(1, -1);
    add(json, shown);
    add(json.replaceAll("/", "\\/"), shown);
  }
  for (const [hidden] of concealments) {
    if (!/^https?:\/\//i.test(hidden)) continue;
    try {
      const url = new URL(hidden);
      add(url.host, MASK);
      add(url.hostname, MASK);
    } catch {
      // Not a URL after all: its text form is hidden already.
    }
  }
  return shownBy;
}

/**
 * A function that replaces every concealed value in a text, longest first and whatever its case
 * (a URL's host is lowercased on the way), so no part of a longer secret is left showing.
 */
export function concealer(concealments: readonly Concealment[]): (text: string) => string {
  if (concealments.length === 0) return (text) => text;
  const shownBy = forms(concealments);
  if (shownBy.size === 0) return (text) => text;
  const pattern = new RegExp(
    [...shownBy.keys()]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join("|"),
    "gi",
  );
  return (text) => text.replace(pattern, (found) => shownBy.get(found.toLowerCase()) ?? MASK);
}

/**
 * Shortest start of a concealed value hidden at the end of a cut text: one character tells
 * nothing, two begin to narrow a guess.
 */
const MIN_HIDDEN_TAIL = 2;

/**
 * A text that was cut (the first 64 KiB of an answer) with a trailing start of a concealed value
 * masked: a secret the cut splits does not match whole, so `concealer` would leave its first
 * characters showing.
 */
export function concealCutTail(text: string, concealments: readonly Concealment[]): string {
  const lower = text.toLowerCase();
  let shown = text.length;
  for (const hidden of forms(concealments).keys()) {
    const length = startShownAtEnd(lower, hidden);
    if (length >= MIN_HIDDEN_TAIL) shown = Math.min(shown, text.length - length);
  }
  return shown === text.length ? text : text.slice(0, shown) + MASK;
}

/**
 * The length of the longest start of `hidden`, shorter than all of it, that `text` ends with.
 * Linear (a prefix function), so a long secret against a long answer costs no more than reading them.
 */
function startShownAtEnd(text: string, hidden: string): number {
  const border = new Int32Array(hidden.length);
  for (let i = 1, k = 0; i < hidden.length; i++) {
    while (k > 0 && hidden[i] !== hidden[k]) k = border[k - 1] ?? 0;
    if (hidden[i] === hidden[k]) k++;
    border[i] = k;
  }
  let matched = 0;
  for (let i = Math.max(0, text.length - hidden.length); i < text.length; i++) {
    while (matched > 0 && (matched === hidden.length || text[i] !== hidden[matched])) {
      matched = border[matched - 1] ?? 0;
    }
    if (text[i] === hidden[matched]) matched++;
  }
  return matched === hidden.length ? (border[matched - 1] ?? 0) : matched;
}
