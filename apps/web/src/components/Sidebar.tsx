import { store, topicKey } from '../store';
import { dmKey, sameNarrow } from '../narrow';
import type { Narrow } from '../types';
import { ViewLinks, presenceOf } from '../views';

interface Props {
  narrow: Narrow | null;
  onNarrow: (narrow: Narrow) => void;
}

const Count = ({ n }: { n: number }) =>
  n > 0 ? (
    <span class="unread" aria-label={`${n} unread`}>
      {n}
    </span>
  ) : null;

export function Sidebar({ narrow, onNarrow }: Props) {
  const me = store.me;
  const channels = [...store.subscriptions.values()].sort((a, b) => a.name.localeCompare(b.name));
  const people = [...store.users.values()]
    .filter((u) => u.user_id !== me && !u.is_bot && u.is_active !== false)
    .sort((a, b) => a.full_name.localeCompare(b.full_name));
  const groups = [...store.recentDms.keys()].filter((key) => key.includes(','));
  const unread = store.unreadCounts();
  const current = (n: Narrow) => (narrow && sameNarrow(narrow, n, me) ? 'page' : undefined);
  return (
    <nav class="sidebar" aria-label="Conversations">
      <ViewLinks narrow={narrow} />
      <h2>Channels</h2>
      <ul>
        {channels.map((c) => {
          const open = narrow?.kind === 'stream' && narrow.streamId === c.stream_id;
          const topics = open ? (store.topics.get(c.stream_id) ?? []) : [];
          return (
            <li key={c.stream_id}>
              <button
                class="nav-item"
                aria-current={current({ kind: 'stream', streamId: c.stream_id })}
                onClick={() => onNarrow({ kind: 'stream', streamId: c.stream_id })}
              >
                <span class="swatch" style={{ background: c.color }} aria-hidden="true" />
                <span class="name"># {c.name}</span>
                <Count n={unread.streams.get(c.stream_id) ?? 0} />
              </button>
              {topics.length > 0 && (
                <ul class="topics">
                  {topics.slice(0, 15).map((topic) => (
                    <li key={topic}>
                      <button
                        class="nav-item topic"
                        aria-current={current({ kind: 'stream', streamId: c.stream_id, topic })}
                        onClick={() => onNarrow({ kind: 'stream', streamId: c.stream_id, topic })}
                      >
                        <span class="name">{topic || '(no topic)'}</span>
                        <Count n={unread.topics.get(topicKey(c.stream_id, topic)) ?? 0} />
                      </button>
                    </li>
                  ))}
                </ul>
              )}
            </li>
          );
        })}
      </ul>
      <h2>Direct messages</h2>
      <ul>
        {groups.map((key) => {
          const ids = key.split(',').map(Number);
          return (
            <li key={key}>
              <button
                class="nav-item"
                aria-current={current({ kind: 'dm', userIds: ids })}
                onClick={() => onNarrow({ kind: 'dm', userIds: ids })}
              >
                <span class="name">{ids.map((id) => store.userName(id)).join(', ')}</span>
                <Count n={unread.dms.get(key) ?? 0} />
              </button>
            </li>
          );
        })}
        {people.map((u) => (
          <li key={u.user_id}>
            <button
              class="nav-item"
              aria-current={current({ kind: 'dm', userIds: [u.user_id] })}
              onClick={() => onNarrow({ kind: 'dm', userIds: [u.user_id] })}
            >
              <span
                class={`presence ${presenceOf(u.user_id)}`}
                role="img"
                aria-label={presenceOf(u.user_id)}
              />
              <span class="name">{u.full_name}</span>
              <Count n={unread.dms.get(dmKey([u.user_id], me)) ?? 0} />
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
