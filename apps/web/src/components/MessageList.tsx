import { memo } from 'preact/compat';
import { useEffect, useRef, useState } from 'preact/hooks';
import { VList, type VListHandle } from 'virtua';
import { call } from '../api';
import { apiNarrow } from '../narrow';
import { store } from '../store';
import type { Message, Narrow } from '../types';
import { MessageRow } from './MessageRow';

export const PAGE = 100;

export interface MessagePage {
  messages: Message[];
  found_oldest: boolean;
  found_newest: boolean;
}

/**
 * Fetches a page of the narrow's messages: `numBefore` older than `anchor` (and the anchor itself
 * when it is 'newest'), or `numAfter` newer.
 */
export async function fetchMessages(
  narrow: Narrow,
  anchor: number | 'newest',
  numBefore: number,
  numAfter = 0,
): Promise<MessagePage> {
  return call('GET', '/messages', {
    anchor,
    num_before: numBefore,
    num_after: numAfter,
    include_anchor: anchor === 'newest',
    narrow: apiNarrow(narrow, store.me),
    apply_markdown: true,
    client_gravatar: false,
  });
}

/**
 * Shows a page of the narrow's newest messages (on opening it, and after reconnecting);
 * `early`: the same page, already asked for while the page registered.
 */
export async function loadNarrow(
  narrow: Narrow,
  early?: Promise<MessagePage | null>,
): Promise<void> {
  showNewest(narrow, (await early) ?? (await fetchMessages(narrow, 'newest', PAGE)));
}

export function showNewest(narrow: Narrow, { messages, found_oldest }: MessagePage): void {
  if (store.narrow !== narrow) return;
  store.messages = messages;
  store.foundOldest = found_oldest;
  store.changed();
}

/**
 * Adds the narrow's messages newer than those shown: the ones sent between fetching a page
 * before registering and the queue's start (later ones come as events).
 */
export async function loadNewer(narrow: Narrow): Promise<void> {
  for (;;) {
    const last = store.messages[store.messages.length - 1];
    if (!last) return loadNarrow(narrow);
    const { messages, found_newest } = await fetchMessages(narrow, last.id, 0, PAGE);
    if (store.narrow !== narrow) return;
    const known = new Set(store.messages.map((m) => m.id));
    const fresh = messages.filter((m) => !known.has(m.id));
    if (fresh.length) {
      store.messages = [...store.messages, ...fresh].sort((a, b) => a.id - b.id);
      store.changed();
    }
    if (found_newest || !messages.length) return;
  }
}

/** Marks the unread messages on screen as read, once each. */
const pendingRead = new Set<number>();
function markRead(ids: number[]): void {
  const fresh = ids.filter((id) => store.unread.has(id) && !pendingRead.has(id));
  if (!fresh.length) return;
  const places = fresh.map((id) => [id, store.unread.get(id)!] as const);
  for (const id of fresh) {
    pendingRead.add(id);
    store.unread.delete(id);
  }
  store.changed();
  void call('POST', '/messages/flags', { messages: fresh, op: 'add', flag: 'read' })
    .catch(() => {
      // Still unread on the server (unreachable for now): counted again, marked when next seen.
      for (const [id, place] of places) store.unread.set(id, place);
      store.changed();
    })
    .finally(() => {
      for (const id of fresh) pendingRead.delete(id);
    });
}

interface Props {
  narrow: Narrow;
  /** The store's messages of the narrow: a new array whenever any of them changes. */
  messages: Message[];
  foundOldest: boolean;
  /** The reader, once registered (0 before): their own messages get edit and delete buttons. */
  me: number;
}

/**
 * The narrow's messages in a virtualized list (only the rows on screen are in the DOM), stuck to
 * the bottom while the reader is there, loading older pages when they scroll near the top.
 * Memoised: the rest of the page changing (unread counts, presence, typing) leaves it alone.
 */
export const MessageList = memo(function MessageList({ narrow, messages, foundOldest, me }: Props) {
  const list = useRef<VListHandle>(null);
  const [prepending, setPrepending] = useState(false);
  const loading = useRef(false);
  const atBottom = useRef(true);
  const count = messages.length;

  const visibleIds = (): number[] => {
    const handle = list.current;
    if (!handle || !count) return [];
    const first = handle.findItemIndex(handle.scrollOffset);
    const last = handle.findItemIndex(handle.scrollOffset + handle.viewportSize);
    return messages.slice(first, last + 1).map((m) => m.id);
  };

  useEffect(() => {
    atBottom.current = true;
  }, [narrow]);

  useEffect(() => {
    if (atBottom.current && count) list.current?.scrollToIndex(count - 1, { align: 'end' });
    // Unread messages are known once registered (`me` set), possibly after the first paint.
    if (document.visibilityState === 'visible') markRead(visibleIds());
    setPrepending(false);
  }, [count, narrow, me]);

  const loadOlder = async () => {
    if (loading.current || foundOldest || !count) return;
    loading.current = true;
    try {
      const { messages: older, found_oldest } = await fetchMessages(narrow, messages[0].id, PAGE);
      if (store.narrow !== narrow) return;
      const known = new Set(store.messages.map((m) => m.id));
      setPrepending(true);
      store.messages = [...older.filter((m) => !known.has(m.id)), ...store.messages];
      store.foundOldest = found_oldest;
      store.changed();
    } finally {
      loading.current = false;
    }
  };

  const onScroll = (offset: number) => {
    const handle = list.current;
    if (!handle) return;
    atBottom.current = offset + handle.viewportSize >= handle.scrollSize - 40;
    if (offset < 400) void loadOlder();
  };

  if (!count) {
    return (
      <div class="messages empty" role="log" aria-live="polite">
        <p class="muted">{foundOldest ? 'No messages here yet.' : 'Loading…'}</p>
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
      onScroll={onScroll}
      onScrollEnd={() => markRead(visibleIds())}
    >
      {(m: Message) => (
        <MessageRow
          key={m.id}
          message={m}
          me={me}
          showTopic={narrow.kind === 'stream' && narrow.topic === undefined}
        />
      )}
    </VList>
  );
});
