import { useMemo, useState } from "preact/hooks";
import {
  BODY_VIEW_LABEL,
  type BodyView,
  bodyBytes,
  bodyText,
  bodyViews,
  formFields,
  hexDump,
  prettyJson,
  prettyXml,
} from "./body.ts";
import { formatBytes } from "./format.ts";
import { JsonView } from "./json-view.tsx";

/** What the viewer needs of a request: a captured one, an event's, or one Weir sent. */
export interface BodyLike {
  body: string;
  body_encoding: "utf8" | "base64";
  content_type: string | null;
  size: number;
  body_truncated?: boolean;
  partial?: boolean;
}

/** A body longer than this many lines shows its beginning until asked for the rest. */
export const FOLDED_BODY_LINES = 200;

/** The body in the best view for its type, with the others one click away. */
export function BodyViewer({ request }: { request: BodyLike }) {
  const text = useMemo(() => bodyText(request), [request]);
  const views = useMemo(() => bodyViews(request.content_type, text), [request, text]);
  const [chosen, setChosen] = useState<BodyView | null>(null);
  const [unfolded, setUnfolded] = useState(false);
  const view = chosen && views.includes(chosen) ? chosen : (views[0] ?? "raw");

  if (request.size === 0 && request.body === "") return <p class="muted">No body.</p>;
  return (
    <div class="body-viewer">
      <fieldset class="segmented">
        <legend class="visually-hidden">Show body as</legend>
        {views.map((v) => (
          <button
            type="button"
            key={v}
            class="button small"
            aria-pressed={v === view}
            onClick={() => setChosen(v)}
          >
            {BODY_VIEW_LABEL[v]}
          </button>
        ))}
      </fieldset>
      {request.body_truncated && request.partial ? (
        <p class="muted small">The live feed cut this body; the full body is being loaded.</p>
      ) : null}
      <BodyContent
        view={view}
        request={request}
        text={text}
        unfolded={unfolded}
        onUnfold={() => setUnfolded(true)}
      />
    </div>
  );
}

function BodyContent({
  view,
  request,
  text,
  unfolded,
  onUnfold,
}: {
  view: BodyView;
  request: BodyLike;
  text: string | null;
  unfolded: boolean;
  onUnfold: () => void;
}) {
  if (view === "form" && text !== null) {
    const fields = formFields(text) ?? [];
    return (
      <table class="kv" aria-label="Form fields">
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Value</th>
          </tr>
        </thead>
        <tbody>
          {fields.map(([name, value], i) => (
            <tr key={i}>
              <th scope="row">{name}</th>
              <td>{value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    );
  }
  const pretty = view === "json" && text !== null ? prettyJson(text) : null;
  const content =
    view === "json" && text !== null
      ? (pretty ?? text)
      : view === "xml" && text !== null
        ? (prettyXml(text) ?? text)
        : view === "hex" || text === null
          ? hexDump(bodyBytes(request))
          : text;
  const lineCount = countLines(content);
  const folded = !unfolded && lineCount > FOLDED_BODY_LINES;
  return (
    <>
      <pre class={`code body-${view}`} data-body-view={view} data-folded={folded}>
        {pretty !== null ? (
          <JsonView pretty={pretty} lineLimit={folded ? FOLDED_BODY_LINES : null} />
        ) : folded ? (
          firstLines(content, FOLDED_BODY_LINES)
        ) : (
          content
        )}
      </pre>
      {folded ? (
        <button type="button" class="button small body-fold" onClick={onUnfold}>
          Show the whole body ({lineCount.toLocaleString()} lines, {formatBytes(request.size)})
        </button>
      ) : null}
    </>
  );
}

function countLines(text: string): number {
  let lines = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines += 1;
  return lines;
}

function firstLines(text: string, count: number): string {
  let end = -1;
  for (let i = 0; i < count; i++) {
    end = text.indexOf("\n", end + 1);
    if (end === -1) return text;
  }
  return text.slice(0, end);
}
