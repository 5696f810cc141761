import { useId, useRef } from "preact/hooks";

/**
 * A code editor that is a plain textarea: line numbers beside it, Tab indents (Esc, then Tab,
 * leaves, as the hint says), and the line of an error marked in the gutter and named in words.
 */
export function CodeInput(props: {
  label: string;
  name: string;
  value: string;
  onInput: (value: string) => void;
  errorLine?: number;
  errors?: string[];
  hint?: string;
}) {
  const id = useId();
  const leaving = useRef(false);
  const lines = props.value.split("\n").length;
  const invalid = (props.errors?.length ?? 0) > 0;
  const hint = `${props.hint ? `${props.hint} ` : ""}Tab indents; press Esc, then Tab, to leave the editor.`;
  function onKeyDown(event: KeyboardEvent) {
    const area = event.currentTarget as HTMLTextAreaElement;
    if (event.key === "Escape") {
      leaving.current = true;
      return;
    }
    if (
      event.key !== "Tab" ||
      event.shiftKey ||
      leaving.current ||
      event.ctrlKey ||
      event.metaKey
    ) {
      leaving.current = false;
      return;
    }
    event.preventDefault();
    const { selectionStart: start, selectionEnd: end, value } = area;
    const next = `${value.slice(0, start)}  ${value.slice(end)}`;
    props.onInput(next);
    requestAnimationFrame(() => area.setSelectionRange(start + 2, start + 2));
  }
  return (
    <div class={`field${invalid ? " invalid" : ""}`}>
      <label for={id}>{props.label}</label>
      <div class="code-input">
        <pre class="code-gutter" aria-hidden="true">
          {Array.from({ length: lines }, (_, i) => (
            <span key={i} class={i + 1 === props.errorLine ? "error-line" : undefined}>
              {i + 1 === props.errorLine ? `✖${i + 1}` : i + 1}
              {"\n"}
            </span>
          ))}
        </pre>
        <textarea
          id={id}
          class="code-area"
          name={props.name}
          value={props.value}
          rows={Math.max(8, lines + 1)}
          spellcheck={false}
          wrap="off"
          aria-invalid={invalid ? "true" : undefined}
          aria-describedby={`${id}-hint${invalid ? ` ${id}-error` : ""}`}
          onKeyDown={onKeyDown}
          onBlur={() => {
            leaving.current = false;
          }}
          onInput={(e) => props.onInput((e.currentTarget as HTMLTextAreaElement).value)}
        />
      </div>
      <p class="hint" id={`${id}-hint`}>
        {hint}
      </p>
      {invalid ? (
        <p class="error-text" id={`${id}-error`}>
          {props.errors?.join(" ")}
        </p>
      ) : null}
    </div>
  );
}
