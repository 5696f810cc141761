/** One line of pretty-printed JSON, ready to be highlighted and folded. */
export interface JsonLine {
  text: string;
  indent: number;
  /** For a line that opens an object or array: the index of the line that closes it. */
  closes?: number;
  /** How many entries the block opened here holds (shown when it is folded). */
  entries?: number;
}

/**
 * Splits JSON pretty-printed with two-space indents into lines and pairs each opening line with
 * its closing one, so a block can be folded without parsing twice.
 */
export function jsonLines(pretty: string): JsonLine[] {
  const lines: JsonLine[] = pretty.split("\n").map((text) => ({
    text,
    indent: text.length - text.trimStart().length,
  }));
  const open: number[] = [];
  lines.forEach((line, index) => {
    const trimmed = line.text.trimEnd();
    if (/^\s*[}\]],?$/.test(trimmed)) {
      const start = open.pop();
      const opener = start === undefined ? undefined : lines[start];
      if (opener) opener.closes = index;
    }
    if (/[{[]$/.test(trimmed)) {
      open.push(index);
      line.entries = 0;
    } else if (open.length > 0 && !/^\s*[}\]]/.test(trimmed)) {
      const parent = lines[open[open.length - 1] as number];
      if (parent && line.indent === parent.indent + 2) parent.entries = (parent.entries ?? 0) + 1;
    }
    // A block opening inside another one is one entry of it.
    if (/[{[]$/.test(trimmed) && open.length > 1) {
      const parent = lines[open[open.length - 2] as number];
      if (parent) parent.entries = (parent.entries ?? 0) + 1;
    }
  });
  return lines;
}

export type JsonTokenKind = "key" | "string" | "number" | "literal" | "punct";

/** A line's text cut into highlighted pieces; joined back, the pieces are the line exactly. */
export function jsonTokens(text: string): { kind: JsonTokenKind | "space"; text: string }[] {
  const tokens: { kind: JsonTokenKind | "space"; text: string }[] = [];
  const pattern =
    /("(?:[^"\\]|\\.)*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(true|false|null)|([{}[\],:])|(\s+)/g;
  let last = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    if (match.index > last) tokens.push({ kind: "punct", text: text.slice(last, match.index) });
    if (match[1] !== undefined && match[2] !== undefined) {
      tokens.push({ kind: "key", text: match[1] });
      tokens.push({ kind: "punct", text: match[2] });
    } else if (match[1] !== undefined) tokens.push({ kind: "string", text: match[1] });
    else if (match[3] !== undefined) tokens.push({ kind: "number", text: match[3] });
    else if (match[4] !== undefined) tokens.push({ kind: "literal", text: match[4] });
    else if (match[5] !== undefined) tokens.push({ kind: "punct", text: match[5] });
    else tokens.push({ kind: "space", text: match[0] });
    last = pattern.lastIndex;
  }
  if (last < text.length) tokens.push({ kind: "punct", text: text.slice(last) });
  return tokens;
}
