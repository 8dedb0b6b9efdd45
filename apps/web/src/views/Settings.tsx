import { useState } from 'preact/hooks';
import { call } from '../api';
import { store } from '../store';
import { Avatar, StatusEditor } from './People';
import { showView, type SettingsTab } from './route';
import { useAction, ActionStatus } from './action';
import { ImageUpload, SettingsForm, SettingsPage, Switches, TextField } from './forms';
import { TwoFactorSettings } from './TwoFactorSettings';

const TABS: [SettingsTab, string][] = [
  ['profile', 'Profile'],
  ['account', 'Account & privacy'],
  ['display', 'Display'],
  ['notifications', 'Notifications'],
  ['status', 'Status'],
];

const patchSettings = (params: Record<string, string | number | boolean>) =>
  call('PATCH', '/settings', params);

/** Zulip's personal settings: profile, account, display, notifications and status. */
export function Settings({ tab }: { tab: SettingsTab }) {
  return (
    <SettingsPage
      title="Personal settings"
      tabs={TABS}
      current={tab}
      label="Settings sections"
      onChoose={(t) => showView({ kind: 'settings', tab: t })}
    >
      {tab === 'profile' && <ProfileSettings />}
      {tab === 'account' && <AccountSettings />}
      {tab === 'display' && <DisplaySettings />}
      {tab === 'notifications' && <NotificationSettings />}
      {tab === 'status' && <StatusEditor />}
    </SettingsPage>
  );
}

function ProfileSettings() {
  const me = store.users.get(store.me);
  const [name, setName] = useState(me?.full_name ?? '');
  const action = useAction();
  const avatar = useAction();
  return (
    <>
      <SettingsForm
        label="Profile"
        action={action}
        submit="Save name"
        onSubmit={() => void action.run(() => patchSettings({ full_name: name.trim() }))}
      >
        <TextField
          label="Name"
          value={name}
          onValue={setName}
          input={{ required: true, maxLength: 60 }}
        />
      </SettingsForm>
      <ImageUpload
        legend="Profile picture"
        preview={<Avatar user={me} size={96} />}
        upload={{ label: 'Upload a picture', route: '/users/me/avatar' }}
        reset="/users/me/avatar"
        action={avatar}
      />
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
      <SettingsForm
        label="Email"
        action={emailAction}
        submit="Change email"
        saved="Check your new email address for a confirmation link."
        onSubmit={() => void emailAction.run(() => patchSettings({ email: email.trim() }))}
      >
        <p>
          Your email: <strong>{String(store.state.delivery_email ?? me?.email ?? '')}</strong>
        </p>
        <TextField
          label="New email"
          value={email}
          onValue={setEmail}
          input={{ type: 'email', required: true }}
        />
      </SettingsForm>
      <SettingsForm
        label="Password"
        action={passwordAction}
        submit="Change password"
        saved="Password changed."
        onSubmit={() =>
          void passwordAction
            .run(() => patchSettings({ old_password: oldPassword, new_password: newPassword }))
            .then((ok) => {
              if (ok) {
                setOld('');
                setNew('');
              }
            })
        }
      >
        <TextField
          label="Current password"
          input={{ type: 'password', autocomplete: 'current-password', required: true }}
          value={oldPassword}
          onValue={setOld}
        />
        <TextField
          label="New password"
          input={{ type: 'password', autocomplete: 'new-password', required: true }}
          value={newPassword}
          onValue={setNew}
        />
      </SettingsForm>
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
          <Switches items={items} values={s} onChange={set} />
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
