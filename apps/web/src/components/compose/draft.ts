import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { store } from '../../store';
import type { Narrow } from '../../types';
import { draftFor, saveDraft, saveDraftOnExit } from './drafts';
import { targetOf, type Target } from './target';

/**
 * The compose box's text and where it goes, kept as that target's draft on the server: loaded
 * when the box turns to a target, saved a second after the writer's last change, and at once
 * before the box turns elsewhere or goes.
 */
export interface DraftBox {
  target: Target | null;
  /** Changes the target in place (its topic, its people): the text stays. */
  setTarget: (target: Target | null) => void;
  text: string;
  box: RefObject<HTMLTextAreaElement | null>;
  /** The text changed by the writer: saved as the draft a second after the last change. */
  setBody: (value: string) => void;
  /** `setBody`, and the textarea shows the value now. */
  replaceBody: (value: string) => void;
  /** Shows a text that needs no saving: the server's draft holds it, or it is not to be kept. */
  showSaved: (value: string) => void;
  /** Turns to another target, with its draft (and `insert` after it). */
  switchTo: (next: Target | null, insert?: string) => void;
  /** Puts text at the caret, or over the text from `start` to it. */
  insertAtCaret: (insert: string, start?: number) => void;
  /** Saves the text typed since the last save as the target's draft, now. */
  flushDraft: () => void;
  /** Calls off a save still waiting for its second. */
  cancelSave: () => void;
  /** The page is going: a save still waiting is sent on the way out. */
  saveOnExit: () => void;
}

/** What the box holds now, for the callbacks that outlive a render (timers, the page's exit). */
interface Written {
  target: Target | null;
  text: string;
}

/** The saving of typed text as drafts: when to save, and whether anything is left to. */
function useDraftSaving(current: { current: Written }) {
  const saveTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  /** Whether the box holds text typed since its draft was last saved or loaded. */
  const edited = useRef(false);
  return {
    edited,
    /** Typed: `value` is saved as `t`'s draft a second after the last change. */
    typed: (t: Target | null, value: string) => {
      edited.current = true;
      clearTimeout(saveTimer.current);
      if (t) {
        saveTimer.current = setTimeout(() => {
          edited.current = false;
          void saveDraft(t, value);
        }, 1000);
      }
    },
    /** Only typed text: a box emptied by Esc or by sending leaves the draft as it is. */
    flush: () => {
      clearTimeout(saveTimer.current);
      const { target: t, text: body } = current.current;
      if (!edited.current || !t) return;
      edited.current = false;
      void saveDraft(t, body);
    },
    cancel: () => clearTimeout(saveTimer.current),
    /** The page is going: `keepalive` outlives it, where a timer would not. */
    exit: () => {
      const { target: t, text: body } = current.current;
      if (!edited.current || !t) return;
      clearTimeout(saveTimer.current);
      edited.current = false;
      saveDraftOnExit(t, body);
    },
  };
}

/**
 * The box's text and target, following the narrow shown (`onSwitch` hears when the box turns
 * to another target, for what shows beside the text).
 */
export function useDraft(narrow: Narrow | null, onSwitch: () => void): DraftBox {
  const [target, setTarget] = useState<Target | null>(() => targetOf(narrow, null));
  const [text, setText] = useState('');
  const box = useRef<HTMLTextAreaElement>(null);
  const current = useRef<Written>({ target, text });
  current.current = { target, text };
  const saving = useDraftSaving(current);
  const show = (value: string) => {
    setText(value);
    if (box.current) box.current.value = value;
  };
  const setBody = (value: string) => {
    setText(value);
    saving.typed(target, value);
  };
  const switchTo = (next: Target | null, insert = '') => {
    saving.flush();
    setTarget(next);
    const draft = draftFor(next)?.content ?? '';
    saving.edited.current = !!insert;
    show(insert ? (draft ? `${draft}\n${insert}` : insert) : draft);
    onSwitch();
  };

  useEffect(() => {
    if (narrow?.kind === 'stream' || narrow?.kind === 'dm') switchTo(targetOf(narrow, target));
  }, [narrow && (narrow.kind === 'stream' || narrow.kind === 'dm') ? JSON.stringify(narrow) : '']);

  // Registered after the box showed (a linked conversation paints first): its draft, if any.
  useEffect(() => {
    if (!store.me || current.current.text) return;
    const draft = draftFor(current.current.target)?.content;
    if (draft) show(draft);
  }, [store.me]);

  return {
    target,
    setTarget,
    text,
    box,
    setBody,
    replaceBody: (value) => {
      setBody(value);
      if (box.current) box.current.value = value;
    },
    showSaved: (value) => {
      saving.edited.current = false;
      show(value);
    },
    switchTo,
    insertAtCaret: (insert, start) => {
      const el = box.current;
      const value = el?.value ?? text;
      const caret = el?.selectionStart ?? value.length;
      const from = start ?? caret;
      const at = from + insert.length;
      const next = value.slice(0, from) + insert + value.slice(caret);
      // The box and its caret change now, not on a later frame: keys typed right after the
      // completion must land after it, not at a caret a frame late moves back.
      if (el) {
        el.value = next;
        el.setSelectionRange(at, at);
      }
      setBody(next);
    },
    flushDraft: saving.flush,
    cancelSave: saving.cancel,
    saveOnExit: saving.exit,
  };
}

/** Saves the draft when the page goes (with `keepalive`) or the box does (as usual). */
export function useDraftKeptOnExit(draft: DraftBox): void {
  useEffect(() => {
    // Leaving the page with a save still waiting for its second: sent on the way out.
    addEventListener('pagehide', draft.saveOnExit);
    return () => {
      removeEventListener('pagehide', draft.saveOnExit);
      draft.flushDraft();
    };
  }, []);
}
