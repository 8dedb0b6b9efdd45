import { useState } from 'preact/hooks';
import type { DraftBox } from './draft';
import { targetKey, type Target } from './target';

/** A text put away with Esc, and where it was going. */
interface PutAway {
  target: Target | null;
  text: string;
}

/** Esc: the text goes to drafts and the box empties, with Undo until the writer goes on. */
export function usePutAway(draft: DraftBox) {
  const [undo, setUndo] = useState<PutAway | null>(null);
  return {
    undo,
    putAway: () => {
      const { target, text } = draft;
      if (text.trim()) {
        draft.flushDraft();
        setUndo({ target, text });
      }
      draft.showSaved('');
    },
    restore: () => {
      if (!undo) return;
      // Back as it was put away: the server's draft already holds this text.
      if (targetKey(undo.target) !== targetKey(draft.target)) draft.switchTo(undo.target);
      draft.showSaved(undo.text);
      setUndo(null);
      draft.box.current?.focus();
    },
    /** The box changed since, or its message went: nothing to undo any more. */
    dismiss: () => setUndo(null),
  };
}

/** "Draft saved", after Esc, with its Undo. */
export function UndoNotice({ onUndo }: { onUndo: () => void }) {
  return (
    <p class="undo" role="status">
      Draft saved.{' '}
      <button class="link" onClick={onUndo}>
        Undo
      </button>
    </p>
  );
}
