import { useEffect, useState } from 'preact/hooks';
import { call } from '../api';
import { store } from '../store';
import type { Narrow, Subscription } from '../types';
import { showView } from './route';
import { viewState, type Channel } from './state';
import { useAction, ActionStatus } from './action';
import { FilterField, SettingsForm, TextField } from './forms';

type Privacy = 'public' | 'private-shared' | 'private-protected' | 'web-public';

const PRIVACY_LABELS: [Privacy, string, string][] = [
  ['web-public', 'Web-public', 'Anyone on the internet can read it; members can join.'],
  ['public', 'Public', 'Members can join and read its whole history.'],
  [
    'private-shared',
    'Private, shared history',
    'Joining takes an invitation; new subscribers see all history.',
  ],
  [
    'private-protected',
    'Private, protected history',
    'Joining takes an invitation; new subscribers see messages from then on.',
  ],
];

function privacyOf(c: Channel): Privacy {
  if (c.is_web_public) return 'web-public';
  if (!c.invite_only) return 'public';
  return c.history_public_to_subscribers ? 'private-shared' : 'private-protected';
}

function privacyParams(p: Privacy) {
  return {
    is_private: p === 'private-shared' || p === 'private-protected',
    is_web_public: p === 'web-public',
    history_public_to_subscribers: p !== 'private-protected',
  };
}

/** Every channel the reader may see: subscribed ones from the store, the rest from `streams`. */
export function allChannels(): Channel[] {
  const out = new Map<number, Channel>();
  for (const c of viewState.channels.values()) out.set(c.stream_id, c);
  for (const s of store.subscriptions.values())
    out.set(s.stream_id, { ...(out.get(s.stream_id) ?? {}), ...(s as unknown as Channel) });
  return [...out.values()]
    .filter((c) => !c.is_archived)
    .sort((a, b) => a.name.localeCompare(b.name));
}

function PrivacyLabel({ channel }: { channel: Channel }) {
  const p = privacyOf(channel);
  if (p === 'public') return null;
  return <span class="privacy-tag">{p === 'web-public' ? 'web-public' : 'private'}</span>;
}

async function join(channel: Channel) {
  await call('POST', '/users/me/subscriptions', { subscriptions: [{ name: channel.name }] });
}

async function leave(channel: Channel) {
  await call('DELETE', '/users/me/subscriptions', { subscriptions: [channel.name] });
}

type ChannelTab = 'subscribed' | 'all';

/**
 * Zulip's channel settings: every channel one may see (subscribed or all), joining and leaving,
 * creating one, and for the selected channel its settings and the reader's subscription's.
 */
export function Channels({
  streamId,
  creating,
  onNarrow,
}: {
  streamId?: number;
  creating?: boolean;
  onNarrow: (n: Narrow) => void;
}) {
  const selected =
    streamId !== undefined ? allChannels().find((c) => c.stream_id === streamId) : undefined;
  return (
    <>
      <div class="narrow-header">
        <h1 class="narrow-title">Channels</h1>
      </div>
      <div class="view-body split">
        <ChannelList selectedId={streamId} />
        <section class="split-detail" aria-label="Channel details">
          {creating ? (
            <CreateChannel />
          ) : selected ? (
            <ChannelSettings key={selected.stream_id} channel={selected} onNarrow={onNarrow} />
          ) : (
            <p class="muted">Choose a channel to see its settings.</p>
          )}
        </section>
      </div>
    </>
  );
}

/** The channels of a tab whose name holds `filter`. */
function channelsShown(tab: ChannelTab, filter: string): Channel[] {
  return allChannels()
    .filter((c) => tab === 'all' || store.subscriptions.has(c.stream_id))
    .filter((c) => !filter || c.name.toLowerCase().includes(filter.toLowerCase()));
}

/** The list of channels, subscribed or all, filtered by name, each to join or leave. */
function ChannelList({ selectedId }: { selectedId?: number }) {
  const [tab, setTab] = useState<ChannelTab>('all');
  const [filter, setFilter] = useState('');
  const joinLeave = useAction();
  const channels = channelsShown(tab, filter);
  return (
    <section class="split-list" aria-label="Channel list">
      <div class="view-controls">
        <div role="group" aria-label="Which channels" class="tabs">
          <button
            class="secondary"
            aria-pressed={tab === 'subscribed'}
            onClick={() => setTab('subscribed')}
          >
            Subscribed
          </button>
          <button class="secondary" aria-pressed={tab === 'all'} onClick={() => setTab('all')}>
            All channels
          </button>
        </div>
        <button onClick={() => showView({ kind: 'channels', creating: true })}>
          Create channel
        </button>
      </div>
      <FilterField label="Filter channels" value={filter} onValue={setFilter} />
      <ActionStatus action={joinLeave} />
      <ul class="channel-list">
        {channels.map((c) => (
          <ChannelRow
            key={c.stream_id}
            channel={c}
            selected={c.stream_id === selectedId}
            onJoinLeave={(task) => void joinLeave.run(task)}
          />
        ))}
        {!channels.length && <li class="muted">No channels.</li>}
      </ul>
    </section>
  );
}

function ChannelRow({
  channel: c,
  selected,
  onJoinLeave,
}: {
  channel: Channel;
  selected: boolean;
  onJoinLeave: (task: () => Promise<void>) => void;
}) {
  const subscribed = store.subscriptions.has(c.stream_id);
  return (
    <li class={selected ? 'channel-row selected' : 'channel-row'}>
      <span
        class="swatch"
        style={{ background: store.subscriptions.get(c.stream_id)?.color ?? 'var(--border)' }}
        aria-hidden="true"
      />
      <div class="channel-main">
        <button
          class="link-button"
          aria-current={selected ? 'true' : undefined}
          onClick={() => showView({ kind: 'channels', streamId: c.stream_id })}
        >
          #{c.name}
        </button>
        <PrivacyLabel channel={c} />
        {c.description && <p class="muted channel-description">{c.description}</p>}
      </div>
      <button
        class={subscribed ? 'secondary small' : 'small'}
        aria-label={`${subscribed ? 'Leave' : 'Join'} #${c.name}`}
        onClick={() => onJoinLeave(() => (subscribed ? leave(c) : join(c)))}
      >
        {subscribed ? 'Leave' : 'Join'}
      </button>
    </li>
  );
}

function CreateChannel() {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [privacy, setPrivacy] = useState<Privacy>('public');
  const [created, setCreated] = useState('');
  const action = useAction();
  const made = created && allChannels().find((c) => c.name.toLowerCase() === created.toLowerCase());
  useEffect(() => {
    if (made) showView({ kind: 'channels', streamId: made.stream_id });
  }, [made]);
  const privacies = PRIVACY_LABELS.filter(
    ([p]) => p !== 'web-public' || !!viewState.realm.enable_spectator_access,
  );
  return (
    <SettingsForm
      label="Create a channel"
      action={action}
      submit="Create"
      buttons={
        <button type="button" class="secondary" onClick={() => showView({ kind: 'channels' })}>
          Cancel
        </button>
      }
      onSubmit={() =>
        void action.run(async () => {
          const { is_private, is_web_public, history_public_to_subscribers } =
            privacyParams(privacy);
          await call('POST', '/users/me/subscriptions', {
            subscriptions: [{ name: name.trim(), description }],
            invite_only: is_private,
            is_web_public,
            history_public_to_subscribers,
          });
          setCreated(name.trim());
        })
      }
    >
      <h2>Create a channel</h2>
      <TextField
        label="Channel name"
        value={name}
        onValue={setName}
        input={{ required: true, maxLength: 60 }}
      />
      <TextField label="Description" multiline value={description} onValue={setDescription} />
      <PrivacyChoice
        value={privacy}
        onChange={setPrivacy}
        options={privacies}
        name="create-privacy"
      />
    </SettingsForm>
  );
}

function PrivacyChoice({
  value,
  onChange,
  options,
  name,
}: {
  value: Privacy;
  onChange: (p: Privacy) => void;
  options: typeof PRIVACY_LABELS;
  name: string;
}) {
  return (
    <fieldset>
      <legend>Who can access the channel?</legend>
      {options.map(([p, label, hint]) => (
        <label key={p} class="radio">
          <input type="radio" name={name} checked={value === p} onChange={() => onChange(p)} />
          <span>
            {label} <span class="muted">— {hint}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}

interface Group {
  id: number;
  name: string;
  is_system_group: boolean;
}

const POSTERS: [string, string][] = [
  ['role:everyone', 'Everyone'],
  ['role:members', 'Members'],
  ['role:fullmembers', 'Full members'],
  ['role:moderators', 'Moderators'],
  ['role:administrators', 'Administrators'],
];

function ChannelSettings({
  channel,
  onNarrow,
}: {
  channel: Channel;
  onNarrow: (n: Narrow) => void;
}) {
  const sub = store.subscriptions.get(channel.stream_id);
  const admin = viewState.isAdmin();
  return (
    <div class="channel-settings">
      <h2>
        #{channel.name} <PrivacyLabel channel={channel} />
      </h2>
      {channel.description && <p>{channel.description}</p>}
      <div class="form-actions">
        <button
          class="secondary"
          onClick={() => onNarrow({ kind: 'stream', streamId: channel.stream_id })}
        >
          View channel
        </button>
      </div>
      {sub ? (
        <SubscriptionSettings sub={sub} />
      ) : (
        <p class="muted">You are not subscribed to this channel.</p>
      )}
      {admin && <GeneralSettings channel={channel} />}
    </div>
  );
}

/** The reader's own settings of a channel (`POST /users/me/subscriptions/properties`). */
function SubscriptionSettings({ sub }: { sub: Subscription }) {
  const action = useAction();
  const set = (property: string, value: unknown) =>
    action.run(() =>
      call('POST', '/users/me/subscriptions/properties', {
        subscription_data: [{ stream_id: sub.stream_id, property, value }],
      }),
    );
  const settings = store.userSettings;
  // `null` follows the reader's defaults for channels.
  const effective = (own: unknown, fallback: string) =>
    own === null || own === undefined ? !!settings[fallback] : !!own;
  const checks: [string, string, boolean][] = [
    ['pin_to_top', 'Pin to top of the sidebar', !!sub.pin_to_top],
    ['is_muted', 'Mute the channel', !!sub.is_muted],
    [
      'desktop_notifications',
      'Desktop notifications',
      effective(sub.desktop_notifications, 'enable_stream_desktop_notifications'),
    ],
    [
      'audible_notifications',
      'Sound',
      effective(sub.audible_notifications, 'enable_stream_audible_notifications'),
    ],
    [
      'push_notifications',
      'Mobile notifications',
      effective(sub.push_notifications, 'enable_stream_push_notifications'),
    ],
    [
      'email_notifications',
      'Email notifications',
      effective(sub.email_notifications, 'enable_stream_email_notifications'),
    ],
    [
      'wildcard_mentions_notify',
      'Notify for @all and @channel mentions',
      effective(sub.wildcard_mentions_notify, 'wildcard_mentions_notify'),
    ],
  ];
  return (
    <fieldset class="settings-form">
      <legend>Personal settings</legend>
      <label class="inline">
        Colour
        <input
          type="color"
          value={sub.color}
          onChange={(e) => void set('color', (e.currentTarget as HTMLInputElement).value)}
        />
      </label>
      {checks.map(([property, label, checked]) => (
        <label key={property} class="check">
          <input
            type="checkbox"
            checked={checked}
            onChange={(e) => void set(property, (e.currentTarget as HTMLInputElement).checked)}
          />
          {label}
        </label>
      ))}
      <ActionStatus action={action} />
    </fieldset>
  );
}

/** The channel's own settings, for administrators (`PATCH /streams/{id}`). */
function GeneralSettings({ channel }: { channel: Channel }) {
  const [name, setName] = useState(channel.name);
  const [description, setDescription] = useState(channel.description);
  const [privacy, setPrivacy] = useState<Privacy>(privacyOf(channel));
  const [groups, setGroups] = useState<Group[]>([]);
  const action = useAction();
  useEffect(() => {
    void call<{ user_groups: Group[] }>('GET', '/user_groups').then(
      (r) => setGroups(r.user_groups.filter((g) => g.is_system_group)),
      () => setGroups([]),
    );
  }, []);
  const poster = groups.find((g) => g.id === channel.can_send_message_group)?.name ?? '';
  const patch = (params: Record<string, unknown>) =>
    action.run(() =>
      call('PATCH', `/streams/${channel.stream_id}`, params as Record<string, string>),
    );
  return (
    <SettingsForm
      label="Channel settings"
      action={action}
      submit="Save changes"
      onSubmit={() => {
        const params: Record<string, unknown> = {};
        if (name.trim() !== channel.name) params.new_name = name.trim();
        if (description !== channel.description) params.description = description;
        if (privacy !== privacyOf(channel)) Object.assign(params, privacyParams(privacy));
        if (Object.keys(params).length) void patch(params);
      }}
    >
      <h3>Channel settings</h3>
      <TextField label="Name" value={name} onValue={setName} input={{ maxLength: 60 }} />
      <TextField label="Description" multiline value={description} onValue={setDescription} />
      <PrivacyChoice
        value={privacy}
        onChange={setPrivacy}
        options={PRIVACY_LABELS.filter(
          ([p]) => p !== 'web-public' || !!viewState.realm.enable_spectator_access,
        )}
        name={`privacy-${channel.stream_id}`}
      />
      {groups.length > 0 && (
        <label>
          Who can post to the channel
          <select
            value={poster}
            onChange={(e) => {
              const group = groups.find(
                (g) => g.name === (e.currentTarget as HTMLSelectElement).value,
              );
              if (group) void patch({ can_send_message_group: { new: group.id } });
            }}
          >
            {!poster && <option value="">Custom</option>}
            {POSTERS.filter(([n]) => groups.some((g) => g.name === n)).map(([n, label]) => (
              <option key={n} value={n}>
                {label}
              </option>
            ))}
          </select>
        </label>
      )}
    </SettingsForm>
  );
}
