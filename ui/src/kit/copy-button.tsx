import { useEffect, useState } from "preact/hooks";
import { copyText } from "./clipboard.ts";

/** Copies `text`, then says so on the button itself for a moment. */
export function CopyButton(props: { text: string; label?: string; class?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), 2000);
    return () => clearTimeout(timer);
  }, [state]);
  const label = props.label ?? "Copy";
  return (
    <button
      type="button"
      class={`button small ${props.class ?? ""}`}
      onClick={async () => setState((await copyText(props.text)) ? "copied" : "failed")}
    >
      <span aria-live="polite">
        {state === "copied" ? "Copied ✔" : state === "failed" ? "Copy failed" : label}
      </span>
    </button>
  );
}
