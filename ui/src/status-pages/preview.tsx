import { Loaded } from "../kit/loaded.tsx";
import { useApp } from "../lib/context.ts";
import { useData } from "../lib/use-load.ts";
import { getPublicPage, type StatusPage } from "./status-pages.api.ts";

/**
 * What a visitor sees, read from the page's public JSON. The public page forbids framing (its
 * headers say `frame-ancestors 'none'`, so it cannot be framed elsewhere either), hence a summary
 * here and a link to the real page. `round` changes after each edit, so the summary follows it.
 */
export function Preview(props: { page: StatusPage; round: number }) {
  const { api } = useApp();
  const { page } = props;
  const key = `status-preview:${page.slug}:${page.updated_at}:${props.round}`;
  const preview = useData(key, (signal) =>
    getPublicPage(api, page.slug, `${page.updated_at}-${props.round}`, signal),
  );
  return (
    <section class="card" aria-labelledby="preview-title">
      <h2 id="preview-title">Preview</h2>
      <p>
        <a href={`/status/${page.slug}`} target="_blank" rel="noopener">
          Open the public page
        </a>{" "}
        <span class="muted">({page.public_url})</span>
      </p>
      <Loaded data={preview} what="the public page">
        {(p) => (
          <div class="preview">
            <p class="preview-banner">
              <strong>{p.status_label}</strong>
            </p>
            {p.incidents.active.length > 0 ? (
              <p>Open incidents: {p.incidents.active.map((i) => i.title).join(", ")}</p>
            ) : null}
            {p.groups.length === 0 ? <p class="muted">The page shows nothing yet.</p> : null}
            {p.groups.map((g) => (
              <div key={g.name || "—"}>
                {g.name ? <h3>{g.name}</h3> : null}
                <ul class="preview-items">
                  {g.items.map((item) => (
                    <li key={item.id}>
                      {item.name}: {item.status_label}
                    </li>
                  ))}
                </ul>
              </div>
            ))}
          </div>
        )}
      </Loaded>
    </section>
  );
}
