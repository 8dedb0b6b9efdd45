import type { ComponentChildren } from 'preact';
import { createPortal } from 'preact/compat';
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';

const MARGIN = 4;

/**
 * A floating panel beside the control that opened it, drawn in `document.body`. Inside the
 * virtualized message list a panel is clipped by the list's `contain: strict`, and the list takes
 * no pointer events while it scrolls (virtua's choice): a click on a panel low in the list went
 * to the list. Here it sits below the control when it fits, else above, inside the window, and
 * follows the control as the page scrolls. Focus moves into it (a menu's arrow keys move between
 * its items); Esc or a press outside it closes it, and focus goes back to the control.
 */
export function Popover({
  anchor,
  onClose,
  children,
}: {
  anchor: HTMLElement | null;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const box = useRef<HTMLDivElement>(null);
  const close = useRef(onClose);
  close.current = onClose;

  useLayoutEffect(() => {
    const el = box.current;
    if (!el || !anchor) return;
    const place = () => {
      const a = anchor.getBoundingClientRect();
      const { width, height } = el.getBoundingClientRect();
      const below = a.bottom + MARGIN;
      const top =
        below + height <= innerHeight - MARGIN ? below : Math.max(MARGIN, a.top - MARGIN - height);
      const left = Math.max(MARGIN, Math.min(a.right - width, innerWidth - width - MARGIN));
      el.style.top = `${Math.round(top)}px`;
      el.style.left = `${Math.round(left)}px`;
      el.style.visibility = 'visible';
    };
    place();
    // Drawn at the end of the page, not after its control: focus moves in, for the keyboard.
    if (!el.contains(document.activeElement))
      el.querySelector<HTMLElement>('input, button')?.focus({ preventScroll: true });
    const resized = new ResizeObserver(place);
    resized.observe(el);
    addEventListener('scroll', place, true);
    addEventListener('resize', place);
    return () => {
      resized.disconnect();
      removeEventListener('scroll', place, true);
      removeEventListener('resize', place);
    };
  }, [anchor]);

  useEffect(() => {
    const onDown = (e: PointerEvent) => {
      const target = e.target as Node;
      if (!box.current?.contains(target) && !anchor?.contains(target)) close.current();
    };
    document.addEventListener('pointerdown', onDown);
    return () => {
      document.removeEventListener('pointerdown', onDown);
      const focus = document.activeElement;
      if (!focus || focus === document.body || box.current?.contains(focus))
        anchor?.focus({ preventScroll: true });
    };
  }, [anchor]);

  return createPortal(
    <div
      ref={box}
      class="popover"
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.stopPropagation();
          close.current();
          return;
        }
        // A menu's items: the arrow keys move between them.
        const items = [...(box.current?.querySelectorAll<HTMLElement>('[role=menuitem]') ?? [])];
        const at = items.indexOf(document.activeElement as HTMLElement);
        if (at < 0 || (e.key !== 'ArrowDown' && e.key !== 'ArrowUp')) return;
        e.preventDefault();
        items[(at + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length]?.focus();
      }}
    >
      {children}
    </div>,
    document.body,
  );
}
