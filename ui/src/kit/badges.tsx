/** Endpoint status in words, with a shape, never by colour alone. */
export function StatusBadge(props: { status: "active" | "paused" }) {
  return props.status === "active" ? (
    <span class="badge badge-active">
      <span aria-hidden="true">●</span> Active
    </span>
  ) : (
    <span class="badge badge-paused">
      <span aria-hidden="true">❚❚</span> Paused
    </span>
  );
}

export function MethodBadge(props: { method: string }) {
  const method = props.method.toUpperCase();
  return <span class={`method method-${method.toLowerCase()}`}>{method}</span>;
}
