import { Link } from "./link.tsx";

/** Previous/next as real links (`?page=3`), so a page of a list can be opened in a new tab. */
export function Pager(props: {
  page: number;
  pageSize: number;
  total: number;
  href: (page: number) => string;
}) {
  const pages = Math.max(1, Math.ceil(props.total / props.pageSize));
  if (pages <= 1) return null;
  return (
    <nav class="pager" aria-label="Pages">
      {props.page > 1 ? <Link href={props.href(props.page - 1)}>← Previous</Link> : null}
      <span>
        Page {props.page} of {pages}
      </span>
      {props.page < pages ? <Link href={props.href(props.page + 1)}>Next →</Link> : null}
    </nav>
  );
}
