import type { RefObject } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { store } from '../../store';
import type { DraftBox } from './draft';
import { targetKey, targetOf, type Target } from './target';

/** The first thing left to fill in: the people, the topic, or the message. */
function focusFirstBlank(
  box: RefObject<HTMLTextAreaElement | null>,
  next: Target | null,
  text: string,
) {
  const section = box.current?.closest('.compose');
  const first =
    next?.kind === 'dm' && !next.userIds.length
      ? section?.querySelector<HTMLInputElement>('input[aria-label="Add a person"]')
      : next?.kind === 'stream' && !next.topic && !text
        ? section?.querySelector<HTMLInputElement>('input[aria-label=Topic]')
        : null;
  if (first) return first.focus();
  const el = box.current;
  if (!el) return;
  el.focus();
  el.setSelectionRange(el.value.length, el.value.length);
}

/** Replies, quotes and new topics asked for elsewhere (the keyboard, a message's menu). */
export function useComposeRequests(draft: DraftBox): void {
  const requestSeen = useRef(store.composeRequest.seq);
  const request = store.composeRequest;
  useEffect(() => {
    if (request.seq === requestSeen.current) return;
    requestSeen.current = request.seq;
    const { target, text } = draft;
    const next = request.target ? targetOf(request.target, target) : target;
    if (targetKey(next) !== targetKey(target) || request.text) {
      if (targetKey(next) === targetKey(target))
        draft.replaceBody(text ? `${text}\n${request.text}` : request.text);
      else draft.switchTo(next, request.text);
    }
    requestAnimationFrame(() => focusFirstBlank(draft.box, next, request.text));
  }, [request.seq]);
}
