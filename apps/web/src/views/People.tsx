import { FilterField } from './forms';
import { useRef, useState } from 'preact/hooks';
import { call } from '../api';
import { emojiChar } from '../emoji';
import { store } from '../store';
import type { Narrow, User } from '../types';
import { route, showProfile, showView, type View } from './route';
import { searchNarrow } from './SearchBar';
import { viewState, type UserStatus } from './state';
import { Dialog } from '../components/Dialog';
import { useAction, ActionStatus } from './action';

export const ROLE_NAMES: Record<number, string> = {
  100: 'Owner',
  200: 'Administrator',
  300: 'Moderator',
  400: 'Member',
  600: 'Guest',
};

/** An image URL only if it is served by us: the CSP loads no image from elsewhere. */
export function ownImage(url: unknown): string {
  if (typeof url !== 'string' || !url) return '';
  try {
    return new URL(url, location.href).origin === location.origin ? url : '';
  } catch {
    return '';
  }
}

export function Avatar({ user, size = 32 }: { user: User | undefined; size?: number }) {
  const url = ownImage(user?.avatar_url);
  const style = { width: `${size}px`, height: `${size}px` };
  return url ? (
    <img class="person-avatar" src={url} alt="" style={style} />
  ) : (
    <span class="person-avatar" aria-hidden="true" style={style}>
      {(user?.full_name ?? '?').slice(0, 1)}
    </span>
  );
}

const PRESENCE_LABEL = { active: 'Active', idle: 'Idle', offline: 'Offline' } as const;

export function PresenceDot({ userId }: { userId: number }) {
  const p = viewState.presenceOf(userId);
  return <span class={`presence-dot ${p}`} role="img" aria-label={PRESENCE_LABEL[p]} />;
}

export function statusEmoji(status: UserStatus | undefined): string {
  if (!status?.emoji_name) return '';
  if (status.reaction_type && status.reaction_type !== 'unicode_emoji')
    return `:${status.emoji_name}:`;
  const code = status.emoji_code || store.emoji.get(status.emoji_name);
  return code ? emojiChar(code) : `:${status.emoji_name}:`;
}

export function StatusText({ userId }: { userId: number }) {
  const status = viewState.statuses.get(userId);
  if (!status?.status_text && !status?.emoji_name) return null;
  return (
    <span class="user-status">
      {statusEmoji(status)} {status.status_text}
    </span>
  );
}

/** Zulip's people list: everyone in the organization, with presence and status; a click opens their card. */
export function People() {
  viewState.sync();
  const [filter, setFilter] = useState('');
  const people = [...store.users.values()]
    .filter((u) => u.is_active !== false)
    .filter(
      (u) =>
        !filter ||
        u.full_name.toLowerCase().includes(filter.toLowerCase()) ||
        u.email.toLowerCase().includes(filter.toLowerCase()),
    )
    .sort((a, b) => a.full_name.localeCompare(b.full_name));
  return (
    <>
      <div class="narrow-header">
        <h1 class="narrow-title">People</h1>
      </div>
      <div class="view-body">
        <div class="view-controls">
          <FilterField label="Filter people" value={filter} onValue={setFilter} />
          <button class="secondary" onClick={() => showView({ kind: 'settings', tab: 'status' })}>
            Set your status
          </button>
        </div>
        <ul class="people-list">
          {people.map((u) => (
            <li key={u.user_id} class="person-row">
              <Avatar user={u} />
              <PresenceDot userId={u.user_id} />
              <div class="person-main">
                <button class="link-button" onClick={() => showProfile(u.user_id)}>
                  {u.full_name}
                </button>
                {u.is_bot && <span class="privacy-tag">bot</span>}
                {viewState.mutedUsers.has(u.user_id) && <span class="privacy-tag">muted</span>}
                <StatusText userId={u.user_id} />
              </div>
              <span class="muted person-role">{ROLE_NAMES[u.role ?? 400] ?? ''}</span>
            </li>
          ))}
        </ul>
      </div>
    </>
  );
}

function localTime(timezone: unknown): string {
  if (typeof timezone !== 'string' || !timezone) return '';
  try {
    return new Intl.DateTimeFormat([], {
      hour: 'numeric',
      minute: '2-digit',
      hour12: !store.userSettings.twenty_four_hour_time,
      timeZone: timezone,
    }).format(new Date());
  } catch {
    return '';
  }
}

/** A person's card: who they are, how to reach them, and muting them. */
export function ProfileCard({
  userId,
  onNarrow,
}: {
  userId: number;
  onNarrow: (n: Narrow) => void;
}) {
  const opener = useRef<Element | null>(document.activeElement);
  const user = store.users.get(userId);
  const close = () => {
    showProfile(null);
    (opener.current as HTMLElement | null)?.focus?.();
  };
  if (!user) return null;
  const go = (n: Narrow) => {
    showProfile(null);
    onNarrow(n);
  };
  return (
    <Dialog class="profile-card" labelledBy="profile-card-name" focusKey={userId} onClose={close}>
      <ProfileHead user={user} />
      <ProfileActions user={user} onNarrow={go} onClose={close} />
    </Dialog>
  );
}

/** Who a person is: avatar, name and presence, email, role, status and local time. */
function ProfileHead({ user }: { user: User }) {
  const time = localTime(user.timezone);
  return (
    <div class="profile-head">
      <Avatar user={user} size={64} />
      <div>
        <h2 id="profile-card-name">
          <PresenceDot userId={user.user_id} /> {user.full_name}
        </h2>
        <p class="muted">{user.email}</p>
        <p>
          {ROLE_NAMES[user.role ?? 400] ?? ''}
          {user.is_bot ? ' (bot)' : ''}
        </p>
        <StatusText userId={user.user_id} />
        {time && <p class="muted">Local time: {time}</p>}
      </div>
    </div>
  );
}

/**
 * What one can do from a person's card: write to them, read what they sent, mute them; edit
 * one's own profile; manage them (administrators).
 */
function ProfileActions({
  user,
  onNarrow,
  onClose,
}: {
  user: User;
  onNarrow: (n: Narrow) => void;
  onClose: () => void;
}) {
  const action = useAction();
  const userId = user.user_id;
  const muted = viewState.mutedUsers.has(userId);
  const me = userId === store.me;
  const openView = (view: View) => {
    showProfile(null);
    showView(view);
  };
  return (
    <>
      <div class="form-actions wrap">
        <button onClick={() => onNarrow({ kind: 'dm', userIds: [userId] })}>
          Send direct message
        </button>
        <button
          class="secondary"
          onClick={() => {
            route.query = `sender:${user.email}`;
            onNarrow(searchNarrow(route.query));
          }}
        >
          View messages sent
        </button>
        {!me && (
          <button
            class="secondary"
            onClick={() =>
              void action.run(() =>
                call(muted ? 'DELETE' : 'POST', `/users/me/muted_users/${userId}`),
              )
            }
          >
            {muted ? 'Unmute user' : 'Mute user'}
          </button>
        )}
        {me && (
          <button class="secondary" onClick={() => openView({ kind: 'settings', tab: 'profile' })}>
            Edit your profile
          </button>
        )}
        {viewState.isAdmin() && !me && (
          <button class="secondary" onClick={() => openView({ kind: 'admin', tab: 'users' })}>
            Manage user
          </button>
        )}
        <button class="secondary" onClick={onClose}>
          Close
        </button>
      </div>
      {action.error && <ActionStatus action={action} />}
    </>
  );
}

/** Opens the card of a message's sender when their name or avatar is clicked in a message. */
export function watchSenderClicks(): () => void {
  const onClick = (e: MouseEvent) => {
    const target = e.target as HTMLElement;
    if (!target.closest('.message .sender, .message .avatar')) return;
    const id = Number(target.closest('.message')?.getAttribute('data-message-id'));
    const message = store.known.get(id);
    if (message) showProfile(message.sender_id);
  };
  document.addEventListener('click', onClick);
  return () => document.removeEventListener('click', onClick);
}

/** Statuses one sets often, one click each: an emoji name and its text. */
const STATUS_PRESETS: [string, string][] = [
  ['calendar', 'In a meeting'],
  ['bus', 'Commuting'],
  ['sick', 'Out sick'],
  ['palm_tree', 'Vacationing'],
  ['house', 'Working remotely'],
];

/** One's own status as `POST /users/me/status` takes it: no emoji name clears the emoji. */
function saveStatus(status_text: string, emoji_name: string): Promise<unknown> {
  return call('POST', '/users/me/status', {
    status_text,
    emoji_name,
    emoji_code: emoji_name ? (store.emoji.get(emoji_name) ?? '') : '',
    reaction_type: emoji_name ? 'unicode_emoji' : '',
  });
}

/** Setting one's own status: an emoji and a text, or cleared (`POST /users/me/status`). */
export function StatusEditor() {
  const current = viewState.statuses.get(store.me) ?? {};
  const [text, setText] = useState(current.status_text ?? '');
  const [emoji, setEmoji] = useState(current.emoji_name ?? '');
  const action = useAction();
  const save = (status_text: string, emoji_name: string) =>
    action.run(() => saveStatus(status_text, emoji_name));
  return (
    <form
      class="settings-form"
      aria-label="Your status"
      onSubmit={(e) => {
        e.preventDefault();
        void save(text, emoji);
      }}
    >
      <p>
        Now: <StatusText userId={store.me} />
      </p>
      <label>
        Emoji name
        <input
          value={emoji}
          placeholder="e.g. palm_tree"
          onInput={(e) => setEmoji((e.currentTarget as HTMLInputElement).value.trim())}
        />
      </label>
      <label>
        Status text
        <input
          value={text}
          maxLength={60}
          onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)}
        />
      </label>
      <StatusPresets
        onChoose={(name, label) => {
          setEmoji(name);
          setText(label);
        }}
      />
      <ActionStatus action={action} />
      <div class="form-actions">
        <button type="submit" disabled={action.busy}>
          Save status
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            setText('');
            setEmoji('');
            void save('', '');
          }}
        >
          Clear status
        </button>
      </div>
    </form>
  );
}

/** The preset statuses as buttons: a click fills the form, which is saved as usual. */
function StatusPresets({ onChoose }: { onChoose: (emojiName: string, text: string) => void }) {
  return (
    <div class="form-actions wrap">
      {STATUS_PRESETS.map(([name, label]) => {
        const code = store.emoji.get(name);
        return (
          <button
            type="button"
            key={name}
            class="secondary small"
            onClick={() => onChoose(name, label)}
          >
            {code ? emojiChar(code) : ''} {label}
          </button>
        );
      })}
    </div>
  );
}
