import { useState } from 'preact/hooks';
import { call } from '../api';
import { store } from '../store';
import { Avatar, StatusEditor } from './People';
import { showView, type SettingsTab } from './route';
import { useAction, ActionStatus } from './action';
import { TwoFactorSettings } from './TwoFactorSettings';

const TABS: [SettingsTab, string][] = [
  ['profile', 'Profile'],
  ['account', 'Account & privacy'],
  ['display', 'Display'],
  ['notifications', 'Notifications'],
  ['status', 'Status'],
];

/** Tabs of a settings page: buttons that switch the page (each has its own address). */
export function Tabs<T extends string>({
  tabs,
  current,
  label,
  onChoose,
}: {
  tabs: [T, string][];
  current: T;
  label: string;
  onChoose: (tab: T) => void;
}) {
  return (
    <nav class="settings-tabs" aria-label={label}>
      {tabs.map(([tab, name]) => (
        <button
          key={tab}
          class="secondary"
          aria-current={tab === current ? 'page' : undefined}
          onClick={() => onChoose(tab)}
        >
          {name}
        </button>
      ))}
    </nav>
  );
}

const patchSettings = (params: Record<string, string | number | boolean>) =>
  call('PATCH', '/settings', params);

/** Zulip's personal settings: profile, account, display, notifications and status. */
export function Settings({ tab }: { tab: SettingsTab }) {
  return (
    <>
      <div class="narrow-header">
        <h1 class="narrow-title">Personal settings</h1>
      </div>
      <div class="view-body">
        <Tabs
          tabs={TABS}
          current={tab}
          label="Settings sections"
          onChoose={(t) => showView({ kind: 'settings', tab: t })}
        />
        {tab === 'profile' && <ProfileSettings />}
        {tab === 'account' && <AccountSettings />}
        {tab === 'display' && <DisplaySettings />}
        {tab === 'notifications' && <NotificationSettings />}
        {tab === 'status' && <StatusEditor />}
      </div>
    </>
  );
}

function ProfileSettings() {
  const me = store.users.get(store.me);
  const [name, setName] = useState(me?.full_name ?? '');
  const action = useAction();
  const avatar = useAction();
  return (
    <>
      <form
        class="settings-form"
        aria-label="Profile"
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(() => patchSettings({ full_name: name.trim() }));
        }}
      >
        <label>
          Name
          <input
            value={name}
            required
            maxLength={60}
            onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)}
          />
        </label>
        <ActionStatus action={action} />
        <div class="form-actions">
          <button type="submit" disabled={action.busy}>
            Save name
          </button>
        </div>
      </form>
      <fieldset class="settings-form">
        <legend>Profile picture</legend>
        <div class="avatar-edit">
          <Avatar user={me} size={96} />
          <div class="form-actions wrap">
            <label class="button-like">
              Upload a picture
              <input
                type="file"
                accept="image/*"
                class="visually-hidden"
                onChange={(e) => {
                  const file = (e.currentTarget as HTMLInputElement).files?.[0];
                  if (!file) return;
                  const body = new FormData();
                  body.append('file', file);
                  void avatar.run(() => call('POST', '/users/me/avatar', {}, { body }));
                }}
              />
            </label>
            <button
              type="button"
              class="secondary"
              onClick={() => void avatar.run(() => call('DELETE', '/users/me/avatar'))}
            >
              Use the default
            </button>
          </div>
        </div>
        <ActionStatus action={avatar} />
      </fieldset>
    </>
  );
}

function AccountSettings() {
  const me = store.users.get(store.me);
  const [email, setEmail] = useState('');
  const [oldPassword, setOld] = useState('');
  const [newPassword, setNew] = useState('');
  const emailAction = useAction();
  const passwordAction = useAction();
  return (
    <>
      <form
        class="settings-form"
        aria-label="Email"
        onSubmit={(e) => {
          e.preventDefault();
          void emailAction.run(() => patchSettings({ email: email.trim() }));
        }}
      >
        <p>
          Your email: <strong>{String(store.state.delivery_email ?? me?.email ?? '')}</strong>
        </p>
        <label>
          New email
          <input
            type="email"
            required
            value={email}
            onInput={(e) => setEmail((e.currentTarget as HTMLInputElement).value)}
          />
        </label>
        <ActionStatus
          action={emailAction}
          saved="Check your new email address for a confirmation link."
        />
        <div class="form-actions">
          <button type="submit" disabled={emailAction.busy}>
            Change email
          </button>
        </div>
      </form>
      <form
        class="settings-form"
        aria-label="Password"
        onSubmit={(e) => {
          e.preventDefault();
          void passwordAction
            .run(() => patchSettings({ old_password: oldPassword, new_password: newPassword }))
            .then((ok) => {
              if (ok) {
                setOld('');
                setNew('');
              }
            });
        }}
      >
        <label>
          Current password
          <input
            type="password"
            autocomplete="current-password"
            required
            value={oldPassword}
            onInput={(e) => setOld((e.currentTarget as HTMLInputElement).value)}
          />
        </label>
        <label>
          New password
          <input
            type="password"
            autocomplete="new-password"
            required
            value={newPassword}
            onInput={(e) => setNew((e.currentTarget as HTMLInputElement).value)}
          />
        </label>
        <ActionStatus action={passwordAction} saved="Password changed." />
        <div class="form-actions">
          <button type="submit" disabled={passwordAction.busy}>
            Change password
          </button>
        </div>
      </form>
      <TwoFactorSettings />
    </>
  );
}

/** A setting saved as soon as it changes. */
function useSetting() {
  const action = useAction();
  return {
    action,
    set: (name: string, value: string | number | boolean) =>
      void action.run(() => patchSettings({ [name]: value })),
  };
}

function DisplaySettings() {
  const { action, set } = useSetting();
  const s = store.userSettings;
  return (
    <fieldset class="settings-form">
      <legend>Display</legend>
      <label>
        Theme
        <select
          value={String(s.color_scheme ?? 1)}
          onChange={(e) =>
            set('color_scheme', Number((e.currentTarget as HTMLSelectElement).value))
          }
        >
          <option value="1">Automatic (follows the system)</option>
          <option value="3">Light</option>
          <option value="2">Dark</option>
        </select>
      </label>
      <label>
        Time format
        <select
          value={s.twenty_four_hour_time ? '24' : '12'}
          onChange={(e) =>
            set('twenty_four_hour_time', (e.currentTarget as HTMLSelectElement).value === '24')
          }
        >
          <option value="12">12-hour (5:00 PM)</option>
          <option value="24">24-hour (17:00)</option>
        </select>
      </label>
      <ActionStatus action={action} />
    </fieldset>
  );
}

const NOTIFICATIONS: [string, [string, string][]][] = [
  [
    'Direct messages and mentions',
    [
      ['enable_desktop_notifications', 'Desktop notifications'],
      ['enable_sounds', 'Sound'],
      ['enable_offline_email_notifications', 'Email when offline'],
      ['enable_offline_push_notifications', 'Mobile notifications when offline'],
      ['pm_content_in_desktop_notifications', 'Show message content in desktop notifications'],
    ],
  ],
  [
    'Channels',
    [
      ['enable_stream_desktop_notifications', 'Desktop notifications'],
      ['enable_stream_audible_notifications', 'Sound'],
      ['enable_stream_email_notifications', 'Email'],
      ['enable_stream_push_notifications', 'Mobile notifications'],
      ['wildcard_mentions_notify', 'Notify for @all and @channel mentions'],
    ],
  ],
  [
    'Followed topics',
    [
      ['enable_followed_topic_desktop_notifications', 'Desktop notifications'],
      ['enable_followed_topic_audible_notifications', 'Sound'],
      ['enable_followed_topic_email_notifications', 'Email'],
      ['enable_followed_topic_push_notifications', 'Mobile notifications'],
    ],
  ],
  [
    'Other',
    [
      ['enable_digest_emails', 'Digest emails when away'],
      ['enable_login_emails', 'Email on new logins'],
    ],
  ],
];

/** The sounds the server offers (`available_notification_sounds`), and none. */
function sounds(): string[] {
  const offered = (store.state.available_notification_sounds ?? []) as string[];
  const current = String(store.userSettings.notification_sound ?? 'zulip');
  return [...new Set([...offered, current, 'none'])];
}

function NotificationSettings() {
  const { action, set } = useSetting();
  const s = store.userSettings;
  return (
    <div class="settings-form">
      {NOTIFICATIONS.map(([group, items]) => (
        <fieldset key={group}>
          <legend>{group}</legend>
          {items
            .filter(([name]) => name in s)
            .map(([name, label]) => (
              <label key={name} class="check">
                <input
                  type="checkbox"
                  checked={!!s[name]}
                  onChange={(e) => set(name, (e.currentTarget as HTMLInputElement).checked)}
                />
                {label}
              </label>
            ))}
        </fieldset>
      ))}
      {'notification_sound' in s && (
        <label>
          Notification sound
          <select
            value={String(s.notification_sound)}
            onChange={(e) =>
              set('notification_sound', (e.currentTarget as HTMLSelectElement).value)
            }
          >
            {sounds().map((sound) => (
              <option key={sound} value={sound}>
                {sound}
              </option>
            ))}
          </select>
        </label>
      )}
      <ActionStatus action={action} />
    </div>
  );
}
