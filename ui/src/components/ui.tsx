import type { AnchorHTMLAttributes, ComponentChildren } from "preact";
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { copyText } from "../lib/clipboard.ts";
import { formatFullDate, formatRelative } from "../lib/format.ts";
import { onLinkClick } from "../lib/router.ts";

/** An in-app link (no reload). */
export function Link(props: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  return <a {...props} href={props.href} onClick={onLinkClick} />;
}

interface FieldProps {
  label: string;
  name: string;
  value: string;
  onInput: (value: string) => void;
  type?: "text" | "email" | "password" | "url" | "search";
  hint?: string;
  errors?: string[];
  required?: boolean;
  autoComplete?: string;
  placeholder?: string;
  multiline?: boolean;
  inputMode?: "numeric" | "url" | "email" | "text";
}

/** A labelled input with its hint and its errors tied to it for screen readers. */
export function Field(props: FieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const invalid = (props.errors?.length ?? 0) > 0;
  const described = [props.hint ? hintId : "", invalid ? errorId : ""].filter(Boolean).join(" ");
  const common = {
    id,
    name: props.name,
    value: props.value,
    required: props.required,
    placeholder: props.placeholder,
    "aria-invalid": invalid ? ("true" as const) : undefined,
    "aria-describedby": described || undefined,
    onInput: (e: Event) => props.onInput((e.currentTarget as HTMLInputElement).value),
  };
  return (
    <div class={`field${invalid ? " invalid" : ""}`}>
      <label for={id}>
        {props.label}
        {props.required ? null : <span class="optional"> (optional)</span>}
      </label>
      {props.multiline ? (
        <textarea {...common} rows={5} spellcheck={false} />
      ) : (
        <input
          {...common}
          // The union of input types is wider than Preact's per-type attribute sets; all are text-like here.
          type={(props.type ?? "text") as "text"}
          autoComplete={props.autoComplete}
          inputMode={props.inputMode}
        />
      )}
      {props.hint ? (
        <p class="hint" id={hintId}>
          {props.hint}
        </p>
      ) : null}
      {invalid ? (
        <p class="error-text" id={errorId}>
          {props.errors?.join(" ")}
        </p>
      ) : null}
    </div>
  );
}

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

/** A relative time that shows the exact time on hover and to screen readers. */
export function Time(props: { iso: string | null | undefined; now?: number }) {
  if (!props.iso) return <span>never</span>;
  return (
    <time dateTime={props.iso} title={formatFullDate(props.iso)}>
      {formatRelative(props.iso, props.now ?? Date.now())}
    </time>
  );
}

interface ConfirmProps {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  onConfirm: () => void | Promise<void>;
  onClose: () => void;
}

/** A modal question (native <dialog>: focus is trapped and Escape cancels). */
export function ConfirmDialog(props: ConfirmProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  return (
    <dialog ref={ref} class="dialog" aria-labelledby={titleId} onClose={props.onClose}>
      <h2 id={titleId}>{props.title}</h2>
      <div class="dialog-body">{props.children}</div>
      <div class="actions">
        <button type="button" class="button" onClick={() => ref.current?.close()}>
          Cancel
        </button>
        <button
          type="button"
          class="button danger"
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            try {
              await props.onConfirm();
            } finally {
              setBusy(false);
              ref.current?.close();
            }
          }}
        >
          {props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/** Re-renders every `ms` so relative times stay true. */
export function useNow(ms = 15_000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}
