import { FilterField } from './forms';
import { useEffect, useState, type Dispatch, type StateUpdater } from 'preact/hooks';
import { call } from '../api';
import { clockTime } from '../clock';
import { dmKey, messageDmKey } from '../narrow';
import { store, topicKey } from '../store';
import type { Message, Narrow, ServerEvent } from '../types';
import { messageMuted } from './muting';

interface Conversation {
  key: string;
  narrow: Narrow;
  streamId?: number;
  topic?: string;
  /** Senders, most recent first. */
  senders: number[];
  lastId: number;
  lastTime: number;
}

/** The recent conversations, built from the newest messages and kept current by events. */
const recent = {
  loaded: false,
  loading: false,
  conversations: new Map<string, Conversation>(),
};

function add(m: Message): void {
  if (messageMuted(m)) return;
  const key =
    m.type === 'stream' ? `s${topicKey(m.stream_id!, m.subject)}` : `d${messageDmKey(m, store.me)}`;
  const old = recent.conversations.get(key);
  const narrow: Narrow =
    m.type === 'stream'
      ? { kind: 'stream', streamId: m.stream_id!, topic: m.subject }
      : { kind: 'dm', userIds: messageDmKey(m, store.me).split(',').map(Number) };
  if (old && old.lastId > m.id) {
    if (!old.senders.includes(m.sender_id)) old.senders.push(m.sender_id);
    return;
  }
  recent.conversations.set(key, {
    key,
    narrow,
    streamId: m.stream_id,
    topic: m.type === 'stream' ? m.subject : undefined,
    senders: [m.sender_id, ...(old?.senders ?? []).filter((id) => id !== m.sender_id)],
    lastId: m.id,
    lastTime: m.timestamp,
  });
}

async function loadRecent(): Promise<void> {
  if (recent.loading) return;
  recent.loading = true;
  try {
    const { messages } = await call<{ messages: Message[] }>('GET', '/messages', {
      anchor: 'newest',
      num_before: 1000,
      num_after: 0,
      narrow: [],
      apply_markdown: false,
      client_gravatar: false,
    });
    for (const m of messages) add(m);
    recent.loaded = true;
  } finally {
    recent.loading = false;
    store.changed();
  }
}

/** New messages and moved topics, applied whether or not the view is open. */
function applyToRecent(event: ServerEvent): void {
  if (!recent.loaded) return;
  if (event.type === 'message') add(event.message as Message);
  // A moved or renamed topic: built again from the server's answer.
  if (
    event.type === 'update_message' &&
    (event.subject !== undefined || event.new_stream_id !== undefined)
  ) {
    recent.conversations.clear();
    recent.loaded = false;
    void loadRecent();
  }
}

store.eventListeners.add(applyToRecent);

const when = (ts: number) => {
  const d = new Date(ts * 1000);
  return Date.now() - d.getTime() < 86_400_000
    ? clockTime(ts)
    : d.toLocaleDateString([], { month: 'short', day: 'numeric' });
};

/** What the table is narrowed to: a text in the place or name, only unread, with or without DMs. */
interface RecentFilter {
  text: string;
  onlyUnread: boolean;
  includeDms: boolean;
}

/** A conversation as the table shows it: where it is, its name, and how much is unread there. */
interface RecentRow extends Conversation {
  unread: number;
  place: string;
  name: string;
}

/** The conversations the filter lets through, newest first. */
function recentRows(filter: RecentFilter): RecentRow[] {
  const unread = store.unreadCounts();
  const text = filter.text.toLowerCase();
  return [...recent.conversations.values()]
    .map((c) => ({
      ...c,
      unread:
        c.streamId !== undefined
          ? (unread.topics.get(topicKey(c.streamId, c.topic!)) ?? 0)
          : (unread.dms.get(dmKey((c.narrow as { userIds: number[] }).userIds, store.me)) ?? 0),
      place:
        c.streamId !== undefined
          ? `#${store.subscriptions.get(c.streamId)?.name ?? 'channel'}`
          : 'Direct messages',
      name:
        c.topic ??
        (c.narrow as { userIds: number[] }).userIds.map((id) => store.userName(id)).join(', '),
    }))
    .filter((c) => filter.includeDms || c.streamId !== undefined)
    .filter((c) => !filter.onlyUnread || c.unread > 0)
    .filter((c) => !text || `${c.place} ${c.name}`.toLowerCase().includes(text))
    .sort((a, b) => b.lastId - a.lastId);
}

/** Zulip's Recent conversations: a table of topics and direct conversations, newest first. */
export function Recent({ onNarrow }: { onNarrow: (n: Narrow) => void }) {
  const [filter, setFilter] = useState<RecentFilter>({
    text: '',
    onlyUnread: false,
    includeDms: true,
  });
  useEffect(() => {
    if (!recent.loaded) void loadRecent();
  }, []);
  return (
    <>
      <div class="narrow-header">
        <h1 class="narrow-title">Recent conversations</h1>
      </div>
      <div class="view-body">
        <RecentControls filter={filter} onChange={setFilter} />
        {!recent.loaded ? (
          <p class="muted">Loading…</p>
        ) : (
          <RecentTable rows={recentRows(filter)} onNarrow={onNarrow} />
        )}
      </div>
    </>
  );
}

/** The filter's controls: a search field and two switches. */
function RecentControls({
  filter,
  onChange,
}: {
  filter: RecentFilter;
  onChange: Dispatch<StateUpdater<RecentFilter>>;
}) {
  const checked = (e: Event) => (e.currentTarget as HTMLInputElement).checked;
  return (
    <div class="view-controls">
      <FilterField
        label="Filter conversations"
        value={filter.text}
        onValue={(text) => onChange((f) => ({ ...f, text }))}
      />
      <label class="check">
        <input
          type="checkbox"
          checked={filter.onlyUnread}
          onChange={(e) => {
            const onlyUnread = checked(e);
            onChange((f) => ({ ...f, onlyUnread }));
          }}
        />
        Unread
      </label>
      <label class="check">
        <input
          type="checkbox"
          checked={filter.includeDms}
          onChange={(e) => {
            const includeDms = checked(e);
            onChange((f) => ({ ...f, includeDms }));
          }}
        />
        Direct messages
      </label>
    </div>
  );
}

/** The conversations, one a row; a click on a name opens that conversation. */
function RecentTable({ rows, onNarrow }: { rows: RecentRow[]; onNarrow: (n: Narrow) => void }) {
  return (
    <table class="recent-table">
      <thead>
        <tr>
          <th scope="col">Channel</th>
          <th scope="col">Topic</th>
          <th scope="col">Participants</th>
          <th scope="col">Unread</th>
          <th scope="col">Time</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((c) => (
          <tr key={c.key}>
            <td class="recent-place">{c.place}</td>
            <td>
              <button class="link-button" onClick={() => onNarrow(c.narrow)}>
                {c.name || '(no topic)'}
              </button>
            </td>
            <td class="recent-people">
              <Participants senders={c.senders} />
            </td>
            <td>
              {c.unread > 0 && (
                <span class="unread" aria-label={`${c.unread} unread`}>
                  {c.unread}
                </span>
              )}
            </td>
            <td class="muted">{when(c.lastTime)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The four latest senders of a conversation as initials, and how many more there are. */
function Participants({ senders }: { senders: number[] }) {
  return (
    <>
      {senders.slice(0, 4).map((id) => (
        <span
          key={id}
          class="mini-avatar"
          title={store.userName(id)}
          aria-label={store.userName(id)}
          role="img"
        >
          {store.userName(id).slice(0, 1)}
        </span>
      ))}
      {senders.length > 4 && <span class="muted">+{senders.length - 4}</span>}
    </>
  );
}
