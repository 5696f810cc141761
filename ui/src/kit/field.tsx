import { useEffect, useId } from "preact/hooks";

interface FieldProps {
  label: string;
  name: string;
  value: string;
  onInput: (value: string) => void;
  type?: "text" | "email" | "password" | "url" | "search" | "datetime-local";
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

/** A labelled select; `errors` read by the same dotted name the server uses. */
export function Select(props: {
  label: string;
  name: string;
  value: string;
  options: { value: string; label: string }[];
  onChange: (value: string) => void;
  hint?: string;
  errors?: string[];
}) {
  const id = useId();
  const invalid = (props.errors?.length ?? 0) > 0;
  const described = [props.hint ? `${id}-hint` : "", invalid ? `${id}-error` : ""]
    .filter(Boolean)
    .join(" ");
  return (
    <div class={`field${invalid ? " invalid" : ""}`}>
      <label for={id}>{props.label}</label>
      <select
        id={id}
        name={props.name}
        value={props.value}
        aria-invalid={invalid ? "true" : undefined}
        aria-describedby={described || undefined}
        onChange={(e) => props.onChange((e.currentTarget as HTMLSelectElement).value)}
      >
        {props.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {props.hint ? (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      {invalid ? (
        <p class="error-text" id={`${id}-error`}>
          {props.errors?.join(" ")}
        </p>
      ) : null}
    </div>
  );
}

/** A labelled checkbox. */
export function Checkbox(props: {
  label: string;
  name: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  const id = useId();
  return (
    <div class="check">
      <input
        id={id}
        type="checkbox"
        name={props.name}
        checked={props.checked}
        onChange={(e) => props.onChange((e.currentTarget as HTMLInputElement).checked)}
      />
      <label for={id}>{props.label}</label>
    </div>
  );
}

/**
 * The `role=alert` summary of a failed submit: says that fields need attention and lists every
 * message no field on the form claimed, so no error is lost.
 */
export function FormErrors(props: {
  errors: Record<string, string[]>;
  claimed: string[];
  message?: string;
}) {
  const loose = Object.entries(props.errors).filter(([key]) => !props.claimed.includes(key));
  if (!props.message && Object.keys(props.errors).length === 0) return null;
  return (
    <div class="notice notice-error" role="alert">
      <span aria-hidden="true" class="notice-icon">
        ✖
      </span>
      <div>
        <p>{props.message ?? "Some fields need attention."}</p>
        {loose.length > 0 ? (
          <ul>
            {loose.map(([key, messages]) => (
              <li key={key}>
                <code>{key}</code>: {messages.join(" ")}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    </div>
  );
}

/** After a failed submit, focus moves to the first field the server named. */
export function useFocusFirstInvalid(errors: Record<string, string[]>) {
  useEffect(() => {
    if (Object.keys(errors).length === 0) return;
    document.querySelector<HTMLElement>('main [aria-invalid="true"]')?.focus();
  }, [errors]);
}
