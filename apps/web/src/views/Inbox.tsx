import { markNarrowRead, store } from '../store';
import type { Narrow } from '../types';
import { topicMuted } from './muting';
import { VISIBILITY, viewState } from './state';

interface UnreadTopic {
  topic: string;
  count: number;
  maxId: number;
}

/** A conversation's unread messages: how many, and the newest's ID. */
interface UnreadCount {
  count: number;
  maxId: number;
}

/** A channel with unread topics, newest topic first. */
interface UnreadChannel {
  streamId: number;
  name: string;
  color: string;
  topics: UnreadTopic[];
}

/**
 * The unread messages by conversation: DMs (keyed by their comma-separated user IDs) newest
 * first, and channels by name with their unmuted topics.
 */
function unreadConversations(): { dmRows: [string, UnreadCount][]; channelRows: UnreadChannel[] } {
  const dms = new Map<string, UnreadCount>();
  const channels = new Map<number, Map<string, UnreadTopic>>();
  for (const [id, place] of store.unread) {
    if ('dm' in place) {
      const row = dms.get(place.dm) ?? { count: 0, maxId: 0 };
      dms.set(place.dm, { count: row.count + 1, maxId: Math.max(row.maxId, id) });
    } else {
      if (topicMuted(place.streamId, place.topic)) continue;
      const topics = channels.get(place.streamId) ?? new Map<string, UnreadTopic>();
      const key = place.topic.toLowerCase();
      const row = topics.get(key) ?? { topic: place.topic, count: 0, maxId: 0 };
      topics.set(key, { ...row, count: row.count + 1, maxId: Math.max(row.maxId, id) });
      channels.set(place.streamId, topics);
    }
  }
  const dmRows = [...dms].sort((a, b) => b[1].maxId - a[1].maxId);
  const channelRows = [...channels]
    .map(([streamId, topics]) => ({
      streamId,
      name:
        store.subscriptions.get(streamId)?.name ??
        viewState.channels.get(streamId)?.name ??
        `channel ${streamId}`,
      color: store.subscriptions.get(streamId)?.color ?? 'var(--border)',
      topics: [...topics.values()].sort((a, b) => b.maxId - a.maxId),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return { dmRows, channelRows };
}

/**
 * Zulip's Inbox: every conversation with unread messages, direct messages first, then each
 * channel with its unread topics (muted ones left out), newest first.
 */
export function Inbox({ onNarrow }: { onNarrow: (n: Narrow) => void }) {
  const { dmRows, channelRows } = unreadConversations();
  return (
    <>
      <div class="narrow-header">
        <h1 class="narrow-title">Inbox</h1>
      </div>
      <div class="view-body inbox">
        {!dmRows.length && !channelRows.length && <p class="muted">You have no unread messages.</p>}
        {dmRows.length > 0 && <InboxDirectMessages rows={dmRows} onNarrow={onNarrow} />}
        {channelRows.map((c) => (
          <InboxChannel key={c.streamId} channel={c} onNarrow={onNarrow} />
        ))}
      </div>
    </>
  );
}

function InboxDirectMessages({
  rows,
  onNarrow,
}: {
  rows: [string, UnreadCount][];
  onNarrow: (n: Narrow) => void;
}) {
  return (
    <section aria-labelledby="inbox-dms">
      <h2 id="inbox-dms" class="inbox-header">
        Direct messages
      </h2>
      <ul class="inbox-list">
        {rows.map(([key, row]) => {
          const ids = key.split(',').map(Number);
          const names = ids.map((id) => store.userName(id)).join(', ');
          return (
            <li key={key} class="inbox-row">
              <button class="link-button" onClick={() => onNarrow({ kind: 'dm', userIds: ids })}>
                {names}
              </button>
              <span class="unread" aria-label={`${row.count} unread`}>
                {row.count}
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function InboxChannel({
  channel: c,
  onNarrow,
}: {
  channel: UnreadChannel;
  onNarrow: (n: Narrow) => void;
}) {
  const unread = c.topics.reduce((n, t) => n + t.count, 0);
  return (
    <section aria-label={`#${c.name}`}>
      <h2 class="inbox-header">
        <span class="swatch" style={{ background: c.color }} aria-hidden="true" />
        <button
          class="link-button"
          onClick={() => onNarrow({ kind: 'stream', streamId: c.streamId })}
        >
          #{c.name}
        </button>
        <span class="unread" aria-label={`${unread} unread`}>
          {unread}
        </span>
        <button
          class="secondary small"
          onClick={() => void markNarrowRead({ kind: 'stream', streamId: c.streamId })}
        >
          Mark read<span class="visually-hidden"> #{c.name}</span>
        </button>
      </h2>
      <ul class="inbox-list">
        {c.topics.map((t) => (
          <li key={t.topic} class="inbox-row">
            {viewState.visibility(c.streamId, t.topic) === VISIBILITY.followed && (
              <span class="followed-mark" role="img" aria-label="followed">
                ★
              </span>
            )}
            <button
              class="link-button"
              onClick={() => onNarrow({ kind: 'stream', streamId: c.streamId, topic: t.topic })}
            >
              {t.topic || '(no topic)'}
            </button>
            <span class="unread" aria-label={`${t.count} unread`}>
              {t.count}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
