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
} from "../lib/body.ts";
import type { RequestRow } from "../lib/types.ts";

/** The body in the best view for its type, with the others one click away. */
export function BodyViewer({ request }: { request: RequestRow }) {
  const text = useMemo(() => bodyText(request), [request]);
  const views = useMemo(() => bodyViews(request.content_type, text), [request, text]);
  const [chosen, setChosen] = useState<BodyView | null>(null);
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
      <BodyContent view={view} request={request} text={text} />
    </div>
  );
}

function BodyContent({
  view,
  request,
  text,
}: {
  view: BodyView;
  request: RequestRow;
  text: string | null;
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
  const content =
    view === "json" && text !== null
      ? (prettyJson(text) ?? text)
      : view === "xml" && text !== null
        ? (prettyXml(text) ?? text)
        : view === "hex" || text === null
          ? hexDump(bodyBytes(request))
          : text;
  return (
    <pre class={`code body-${view}`} data-body-view={view}>
      {content}
    </pre>
  );
}
