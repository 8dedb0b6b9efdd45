import type { RefObject } from 'preact';
import { memo } from 'preact/compat';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { VList, type CacheSnapshot, type VListHandle } from 'virtua';
import { at } from '../../../../libs/core/at';
import { call } from '../api';
import { marksRead, messageDmKey } from '../narrow';
import { store, type MessageView } from '../store';
import type { Message } from '../types';
import { MessageRow } from './MessageRow';

/** Marks the unread messages on screen as read, once each. */
const pendingRead = new Set<number>();
export function markRead(ids: number[]): void {
  const fresh = ids.filter((id) => store.unread.has(id) && !pendingRead.has(id));
  if (!fresh.length) return;
  for (const id of fresh) pendingRead.add(id);
  store.readLocally(fresh);
  store.changed();
  void call('POST', '/messages/flags', { messages: fresh, op: 'add', flag: 'read' })
    .catch(() => {
      // Still unread on the server (unreachable for now): counted again, marked when next seen.
      store.unreadLocally(fresh);
      store.changed();
    })
    .finally(() => {
      for (const id of fresh) pendingRead.delete(id);
    });
}

const dayFormat = new Intl.DateTimeFormat([], {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
});
const dayOf = (ts: number) => new Date(ts * 1000).toDateString();

/** Consecutive messages of one sender within this many seconds share a sender line. */
const SAME_SENDER_WINDOW = 5 * 60;

const recipientOf = (m: Message, me: number) =>
  m.type === 'stream' ? `s${m.stream_id}:${m.subject.toLowerCase()}` : `d${messageDmKey(m, me)}`;

/** The list on screen and the messages it shows, for keyboard commands (one list shows at a time). */
let shown: { view: MessageView; handle: VListHandle; messages: Message[] } | null = null;

/** Moves the selection (Zulip's pointer) by `delta` messages, or to the end (`'end'`). */
export function moveSelection(delta: number | 'end' | 'start'): void {
  const view = store.view;
  const list = shown?.view === view ? shown.messages : view?.messages;
  if (!view || !list?.length) return;
  const current = view.selected === null ? -1 : list.findIndex((m) => m.id === view.selected);
  const index =
    delta === 'end'
      ? list.length - 1
      : delta === 'start'
        ? 0
        : Math.max(0, Math.min(list.length - 1, (current < 0 ? list.length - 1 : current) + delta));
  const { id } = at(list, index);
  view.selected = id;
  if (shown?.view === view) shown.handle.scrollToIndex(index, { align: 'nearest' });
  if (marksRead(view.narrow)) markRead([id]);
  store.changed();
}

interface Props {
  view: MessageView;
  /** The view's messages: a new array whenever any of them changes. */
  messages: Message[];
  /** The reader, once registered (0 before). */
  me: number;
  /** Changes when unread messages do (the rows show which are unread). */
  unreadSize: number;
  selected: number | null;
  loaded: boolean;
  /** The reader's time format (rows draw again when it changes). */
  h24: boolean;
}

/** The date line, recipient bar and sender line a row shows, by the message before it. */
function rowJoin(m: Message, prev: Message | undefined, me: number, multiRecipient: boolean) {
  const newDay = !prev || dayOf(prev.timestamp) !== dayOf(m.timestamp);
  const newRecipient = !prev || newDay || recipientOf(prev, me) !== recipientOf(m, me);
  const sameSender =
    !newRecipient &&
    prev!.sender_id === m.sender_id &&
    m.timestamp - prev!.timestamp < SAME_SENDER_WINDOW;
  return {
    day: newDay ? dayFormat.format(m.timestamp * 1000) : null,
    recipientBar: newRecipient && (multiRecipient || newDay || !prev),
    showSender: !sameSender,
  };
}

/** The messages on screen, when seeing them reads them (not in search results). */
function visibleIds(handle: VListHandle | null, messages: Message[], view: MessageView): number[] {
  if (!handle || !messages.length || !marksRead(view.narrow)) return [];
  const first = handle.findItemIndex(handle.scrollOffset);
  const last = handle.findItemIndex(handle.scrollOffset + handle.viewportSize - 1);
  return messages.slice(first, last + 1).map((m) => m.id);
}

/** Keeps `shown` on this list while it is drawn, for the keyboard's moves. */
function useShownList(list: RefObject<VListHandle | null>, view: MessageView, messages: Message[]) {
  useEffect(() => {
    const handle = list.current;
    if (handle) shown = { view, handle, messages };
    return () => {
      if (shown?.view === view) shown = null;
    };
  });
}

/**
 * Where the list first opens: where the reader left it, else at the view's anchor (selecting
 * it), else at the bottom; the newest message is selected when nothing is.
 */
function placeFirst(
  handle: VListHandle,
  view: MessageView,
  messages: Message[],
  atBottom: RefObject<boolean>,
) {
  const count = messages.length;
  if (view.scroll && !view.scroll.atBottom) handle.scrollTo(view.scroll.offset);
  else if (view.anchor !== null && !view.scroll) {
    const index = messages.findIndex((m) => m.id >= view.anchor!);
    if (index >= 0) {
      handle.scrollToIndex(Math.max(0, index), { align: 'start' });
      atBottom.current = false;
      if (view.selected === null) view.selected = at(messages, index).id;
    } else handle.scrollToIndex(count - 1, { align: 'end' });
  } else handle.scrollToIndex(count - 1, { align: 'end' });
  if (view.selected === null) view.selected = at(messages, count - 1).id;
}

/**
 * Places the list once it has messages (`placeFirst`), then keeps it at the bottom as messages
 * come while the reader is there. `onPlaced` runs after each placement, before paint.
 */
function usePlacement(
  list: RefObject<VListHandle | null>,
  view: MessageView,
  messages: Message[],
  loaded: boolean,
  atBottom: RefObject<boolean>,
  onPlaced: () => void,
) {
  const positioned = useRef(false);
  const count = messages.length;
  useLayoutEffect(() => {
    const handle = list.current;
    if (!handle || !count) return;
    if (!positioned.current) {
      positioned.current = true;
      placeFirst(handle, view, messages, atBottom);
      // The selection shows (the list was drawn before it was chosen).
      queueMicrotask(() => store.changed());
    } else if (atBottom.current) handle.scrollToIndex(count - 1, { align: 'end' });
    onPlaced();
  }, [count, loaded]);
}

/**
 * Loads the view's older or newer pages, one request at a time at each end. `onPrepend` runs
 * before older messages are asked for (the list keeps its place when they come in above).
 */
function usePageLoading(view: MessageView, count: number, onPrepend: () => void) {
  const loading = useRef({ older: false, newer: false });
  const loadOlder = async () => {
    if (loading.current.older || view.foundOldest || !count) return;
    loading.current.older = true;
    try {
      onPrepend();
      await store.loadOlder(view);
    } finally {
      loading.current.older = false;
    }
  };
  const loadNewer = async () => {
    if (loading.current.newer || view.foundNewest || !count) return;
    loading.current.newer = true;
    try {
      await store.loadNewer(view);
    } finally {
      loading.current.newer = false;
    }
  };
  return { loadOlder, loadNewer };
}

/**
 * The narrow's messages in a virtualized list (only the rows on screen are in the DOM), grouped
 * as Zulip groups them: a date line where the day changes, a recipient bar (channel › topic, or
 * the conversation's people) where the conversation changes, and one sender line for a run of
 * one sender's messages. Opens at the first unread message (or the newest), stays stuck to the
 * bottom while the reader is there, and loads older and newer pages near either end.
 * Memoised: the rest of the page changing (presence, typing) leaves it alone.
 */
export const MessageList = memo(function MessageList({
  view,
  messages,
  me,
  selected,
  loaded,
  h24,
}: Props) {
  const list = useRef<VListHandle>(null);
  const [prepending, setPrepending] = useState(false);
  const atBottom = useRef(view.scroll?.atBottom ?? view.anchor === null);
  const count = messages.length;
  const multiRecipient =
    view.narrow.kind !== 'dm' &&
    !(view.narrow.kind === 'stream' && view.narrow.topic !== undefined);

  useShownList(list, view, messages);
  usePlacement(list, view, messages, loaded, atBottom, () => setPrepending(false));
  useEffect(() => {
    // Unread messages are known once registered (`me` set), possibly after the first paint.
    if (document.visibilityState === 'visible') markRead(visibleIds(list.current, messages, view));
  }, [count, me]);
  const { loadOlder, loadNewer } = usePageLoading(view, count, () => setPrepending(true));

  const onScroll = (offset: number) => {
    const handle = list.current;
    if (!handle) return;
    atBottom.current = view.foundNewest && offset + handle.viewportSize >= handle.scrollSize - 40;
    if (offset < 600) void loadOlder();
    if (offset + handle.viewportSize > handle.scrollSize - 600) void loadNewer();
  };

  const onScrollEnd = () => {
    const handle = list.current;
    if (handle)
      view.scroll = {
        offset: handle.scrollOffset,
        atBottom: atBottom.current,
        cache: handle.cache,
      };
    if (document.visibilityState === 'visible') markRead(visibleIds(handle, messages, view));
  };

  if (!count) {
    return (
      <div class="messages empty" role="log" aria-live="polite">
        <p class="muted">{loaded ? 'No messages here yet.' : 'Loading…'}</p>
      </div>
    );
  }
  return (
    <VList
      // preact/compat's types merge VList's handle ref with its div's; the handle is what it sets.
      ref={list as never}
      data={messages}
      className="messages"
      role="log"
      aria-label="Messages"
      shift={prepending}
      cache={view.scroll?.cache as CacheSnapshot | undefined}
      onScroll={onScroll}
      onScrollEnd={onScrollEnd}
    >
      {(m: Message, i: number) => (
        <MessageRow
          key={m.id}
          message={m}
          me={me}
          {...rowJoin(m, i > 0 ? messages[i - 1] : undefined, me, multiRecipient)}
          unread={store.unread.has(m.id)}
          selected={selected === m.id}
          h24={h24}
        />
      )}
    </VList>
  );
});
