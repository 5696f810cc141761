import type { ComponentChildren } from "preact";
import type { ApiError } from "../lib/api.ts";
import type { Data } from "../lib/use-load.ts";
import { Link } from "./link.tsx";
import { Notice } from "./notice.tsx";

/** The loading text, the error with Retry, then the children: the three states, written once. */
export function Loaded<T>(props: {
  data: Data<T>;
  what: string;
  children: (value: T) => ComponentChildren;
}) {
  const { data } = props;
  if (data.state === "failed" && data.error && data.data === undefined)
    return <ErrorView error={data.error} onRetry={data.refetch} />;
  if (data.data === undefined)
    return (
      <p class="muted" aria-busy="true">
        Loading {props.what}…
      </p>
    );
  return (
    <>
      {data.error ? <ErrorView error={data.error} onRetry={data.refetch} /> : null}
      {props.children(data.data)}
    </>
  );
}

/** A failed call in words, with Retry; a 5xx names its request id so its log line can be found. */
export function ErrorView(props: { error: ApiError; onRetry?: () => void }) {
  return (
    <Notice kind="error">
      <p>
        {props.error.message}
        {props.error.requestId ? ` (request ${props.error.requestId})` : ""}
      </p>
      {props.onRetry ? (
        <button type="button" class="button small" onClick={props.onRetry}>
          Retry
        </button>
      ) : null}
    </Notice>
  );
}

/** What a page shows when its own item is gone, with the way back to the list. */
export function NotFound(props: { what: string; listHref: string; listLabel: string }) {
  return (
    <main id="main" class="page">
      <h1>{props.what} not found</h1>
      <p>
        It may have been deleted. <Link href={props.listHref}>{props.listLabel}</Link>
      </p>
    </main>
  );
}
