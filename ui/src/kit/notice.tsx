import type { ComponentChildren } from "preact";

/** A message box; `role=alert` for errors so they are read out at once. */
export function Notice(props: {
  kind: "error" | "info" | "warning" | "success";
  children: ComponentChildren;
}) {
  const icon = { error: "✖", info: "ℹ", warning: "⚠", success: "✔" }[props.kind];
  return (
    <div class={`notice notice-${props.kind}`} role={props.kind === "error" ? "alert" : "status"}>
      <span aria-hidden="true" class="notice-icon">
        {icon}
      </span>
      <div>{props.children}</div>
    </div>
  );
}
