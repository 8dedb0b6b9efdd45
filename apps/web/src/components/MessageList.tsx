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
}

/** Fetches a page of the narrow's messages around `anchor`. */
export async function fetchMessages(
  narrow: Narrow,
  anchor: number | 'newest',
  numBefore: number,
): Promise<MessagePage> {
  return call('GET', '/messages', {
    anchor,
    num_before: numBefore,
    num_after: 0,
    include_anchor: anchor === 'newest',
    narrow: apiNarrow(narrow, store.me),
    apply_markdown: true,
    client_gravatar: false,
  });
}

/**
 * Loads the narrow's newest messages into the store (on opening it, and after reconnecting);
 * `early`: the same page, already asked for while the page registered.
 */
export async function loadNarrow(
  narrow: Narrow,
  early?: Promise<MessagePage | null>,
): Promise<void> {
  const { messages, found_oldest } = (await early) ?? (await fetchMessages(narrow, 'newest', PAGE));
  if (store.narrow !== narrow) return;
  store.messages = messages;
  store.foundOldest = found_oldest;
  store.changed();
}

/** Marks the unread messages on screen as read, once each. */
const pendingRead = new Set<number>();
function markRead(ids: number[]): void {
  const fresh = ids.filter((id) => store.unread.has(id) && !pendingRead.has(id));
  if (!fresh.length) return;
  for (const id of fresh) {
    pendingRead.add(id);
    store.unread.delete(id);
  }
  store.changed();
  void call('POST', '/messages/flags', { messages: fresh, op: 'add', flag: 'read' }).finally(() => {
    for (const id of fresh) pendingRead.delete(id);
  });
}

interface Props {
  narrow: Narrow;
  /** The store's messages of the narrow: a new array whenever any of them changes. */
  messages: Message[];
  foundOldest: boolean;
}

/**
 * The narrow's messages in a virtualized list (only the rows on screen are in the DOM), stuck to
 * the bottom while the reader is there, loading older pages when they scroll near the top.
 * Memoised: the rest of the page changing (unread counts, presence, typing) leaves it alone.
 */
export const MessageList = memo(function MessageList({ narrow, messages, foundOldest }: Props) {
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
    if (document.visibilityState === 'visible') markRead(visibleIds());
    setPrepending(false);
  }, [count, narrow]);

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
          showTopic={narrow.kind === 'stream' && narrow.topic === undefined}
        />
      )}
    </VList>
  );
});
