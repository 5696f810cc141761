import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef, useState } from "preact/hooks";

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
