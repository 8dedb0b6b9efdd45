import type { ComponentChildren } from 'preact';
import { store, topicKey, type UnreadCounts } from '../store';
import { dmKey, sameNarrow } from '../narrow';
import type { Narrow, Subscription } from '../types';
import { ViewLinks, presenceOf } from '../views';

interface Props {
  narrow: Narrow | null;
  onNarrow: (narrow: Narrow) => void;
}

/** The sidebar's lists: what they link to, and the unread counts they show. */
interface ListProps extends Props {
  unread: UnreadCounts;
}

const Count = ({ n }: { n: number }) =>
  n > 0 ? (
    <span class="unread" aria-label={`${n} unread`}>
      {n}
    </span>
  ) : null;

/** A link to a narrow, marked as the current page when it is the narrow in view. */
function NavButton({
  to,
  narrow,
  onNarrow,
  class: className = 'nav-item',
  children,
}: Props & { to: Narrow; class?: string; children: ComponentChildren }) {
  const here = narrow && sameNarrow(narrow, to, store.me);
  return (
    <button class={className} aria-current={here ? 'page' : undefined} onClick={() => onNarrow(to)}>
      {children}
    </button>
  );
}

/** A channel, with its recent topics below it while it is open (the first 15). */
function ChannelItem({ channel, narrow, onNarrow, unread }: ListProps & { channel: Subscription }) {
  const streamId = channel.stream_id;
  const open = narrow?.kind === 'stream' && narrow.streamId === streamId;
  const topics = open ? (store.topics.get(streamId) ?? []) : [];
  return (
    <li>
      <NavButton to={{ kind: 'stream', streamId }} narrow={narrow} onNarrow={onNarrow}>
        <span class="swatch" style={{ background: channel.color }} aria-hidden="true" />
        <span class="name"># {channel.name}</span>
        <Count n={unread.streams.get(streamId) ?? 0} />
      </NavButton>
      {topics.length > 0 && (
        <ul class="topics">
          {topics.slice(0, 15).map((topic) => (
            <li key={topic}>
              <NavButton
                to={{ kind: 'stream', streamId, topic }}
                narrow={narrow}
                onNarrow={onNarrow}
                class="nav-item topic"
              >
                <span class="name">{topic || '(no topic)'}</span>
                <Count n={unread.topics.get(topicKey(streamId, topic)) ?? 0} />
              </NavButton>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

/** Group conversations first, then everyone else (active people, no bots) with their presence. */
function DirectMessageList({ narrow, onNarrow, unread }: ListProps) {
  const me = store.me;
  const people = [...store.users.values()]
    .filter((u) => u.user_id !== me && !u.is_bot && u.is_active !== false)
    .sort((a, b) => a.full_name.localeCompare(b.full_name));
  const groups = [...store.recentDms.keys()].filter((key) => key.includes(','));
  return (
    <ul>
      {groups.map((key) => {
        const ids = key.split(',').map(Number);
        return (
          <li key={key}>
            <NavButton to={{ kind: 'dm', userIds: ids }} narrow={narrow} onNarrow={onNarrow}>
              <span class="name">{ids.map((id) => store.userName(id)).join(', ')}</span>
              <Count n={unread.dms.get(key) ?? 0} />
            </NavButton>
          </li>
        );
      })}
      {people.map((u) => (
        <li key={u.user_id}>
          <NavButton to={{ kind: 'dm', userIds: [u.user_id] }} narrow={narrow} onNarrow={onNarrow}>
            <span
              class={`presence ${presenceOf(u.user_id)}`}
              role="img"
              aria-label={presenceOf(u.user_id)}
            />
            <span class="name">{u.full_name}</span>
            <Count n={unread.dms.get(dmKey([u.user_id], me)) ?? 0} />
          </NavButton>
        </li>
      ))}
    </ul>
  );
}

export function Sidebar({ narrow, onNarrow }: Props) {
  const channels = [...store.subscriptions.values()].sort((a, b) => a.name.localeCompare(b.name));
  const unread = store.unreadCounts();
  return (
    <nav class="sidebar" aria-label="Conversations">
      <ViewLinks narrow={narrow} />
      <h2>Channels</h2>
      <ul>
        {channels.map((c) => (
          <ChannelItem
            key={c.stream_id}
            channel={c}
            narrow={narrow}
            onNarrow={onNarrow}
            unread={unread}
          />
        ))}
      </ul>
      <h2>Direct messages</h2>
      <DirectMessageList narrow={narrow} onNarrow={onNarrow} unread={unread} />
    </nav>
  );
}
