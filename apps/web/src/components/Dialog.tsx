import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/** Focus stays in a dialog while it is open: Tab from the last control comes back to the first. */
function trapFocus(e: KeyboardEvent, box: HTMLElement | null, onClose: () => void) {
  if (e.key === 'Escape') {
    e.stopPropagation();
    onClose();
    return;
  }
  if (e.key !== 'Tab' || !box) return;
  const items = [...box.querySelectorAll<HTMLElement>('button, input, select, textarea, a[href]')];
  const [first] = items;
  const last = items.at(-1);
  if (!first || !last) return;
  if (e.shiftKey && document.activeElement === first) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault();
    first.focus();
  }
}

/**
 * A modal dialog over the page (a profile card, a message's edit history): its first button takes
 * the focus (again whenever `focusKey` changes), Tab stays inside, and Esc or a press outside
 * closes it.
 */
export function Dialog({
  class: className,
  labelledBy,
  focusKey,
  onClose,
  children,
}: {
  class: string;
  /** The id of the dialog's heading. */
  labelledBy: string;
  focusKey?: unknown;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    box.current?.querySelector<HTMLElement>('button')?.focus();
  }, [focusKey]);
  return (
    <div class="overlay" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div
        class={className}
        role="dialog"
        aria-modal="true"
        aria-labelledby={labelledBy}
        ref={box}
        onKeyDown={(e) => trapFocus(e, box.current, onClose)}
      >
        {children}
      </div>
    </div>
  );
}
