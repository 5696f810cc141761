import type { JSX } from "preact";
import { useMemo, useState } from "preact/hooks";
import { type JsonLine, jsonLines, jsonTokens } from "./json-lines.ts";

/** Blocks deeper than this start folded when the document is long. */
const FOLD_DEPTH_WHEN_LONG = 2;
const LONG_DOCUMENT_LINES = 400;

/**
 * Pretty JSON, highlighted, each object and array foldable. The fold buttons draw their arrow
 * with CSS, so the text of the view is exactly the pretty-printed JSON (copy and search work).
 */
export function JsonView({ pretty, lineLimit }: { pretty: string; lineLimit: number | null }) {
  const lines = useMemo(() => jsonLines(pretty), [pretty]);
  const [folded, setFolded] = useState<Set<number>>(() => initialFolds(lines));
  const toggle = (index: number) =>
    setFolded((current) => {
      const next = new Set(current);
      if (!next.delete(index)) next.add(index);
      return next;
    });

  const rendered: JSX.Element[] = [];
  let shown = 0;
  for (let i = 0; i < lines.length; i++) {
    if (lineLimit !== null && shown >= lineLimit) break;
    const index = i;
    const line = lines[index] as JsonLine;
    const isFolded = folded.has(index) && line.closes !== undefined;
    rendered.push(
      <span class="json-line" key={index}>
        {line.closes !== undefined ? (
          <button
            type="button"
            class="json-fold"
            aria-expanded={!isFolded}
            aria-label={`${isFolded ? "Unfold" : "Fold"} line ${index + 1}`}
            onClick={() => toggle(index)}
          />
        ) : null}
        <Highlighted text={line.text} />
        {isFolded ? (
          <>
            <span class="json-folded">{` … ${line.entries ?? 0} ${line.entries === 1 ? "entry" : "entries"} `}</span>
            <Highlighted text={(lines[line.closes as number] as JsonLine).text.trim()} />
          </>
        ) : null}
      </span>,
    );
    shown += 1;
    if (isFolded) i = line.closes as number;
    if (i < lines.length - 1) rendered.push(<span key={`n${i}`}>{"\n"}</span>);
  }
  return <>{rendered}</>;
}

function Highlighted({ text }: { text: string }) {
  return (
    <>
      {jsonTokens(text).map((token, i) =>
        token.kind === "space" || token.kind === "punct" ? (
          token.text
        ) : (
          <span key={i} class={`json-${token.kind}`}>
            {token.text}
          </span>
        ),
      )}
    </>
  );
}

function initialFolds(lines: JsonLine[]): Set<number> {
  const folds = new Set<number>();
  if (lines.length <= LONG_DOCUMENT_LINES) return folds;
  lines.forEach((line, index) => {
    if (line.closes !== undefined && line.indent / 2 >= FOLD_DEPTH_WHEN_LONG) folds.add(index);
  });
  return folds;
}
