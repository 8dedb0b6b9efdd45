import { useEffect, useState } from 'preact/hooks';
import { call } from '../api';
import { store } from '../store';
import { grantableRoles } from './admin/roles';
import { Users } from './admin/Users';
import { allChannels } from './Channels';
import { ROLE_NAMES } from './People';
import { showView, type AdminTab } from './route';
import { ImageUpload, SettingsForm, SettingsPage, Switches, TextField } from './forms';
import { viewState } from './state';
import { useAction, ActionStatus } from './action';

const TABS: [AdminTab, string][] = [
  ['organization', 'Organization'],
  ['users', 'Users'],
  ['invitations', 'Invitations'],
];

/** Whether an image comes from this server (the CSP loads no image from elsewhere). */
function isOurs(url: string): boolean {
  try {
    return !!url && new URL(url, location.href).origin === location.origin;
  } catch {
    return false;
  }
}

/** Organization administration, for owners and administrators. */
export function Admin({ tab }: { tab: AdminTab }) {
  viewState.sync();
  if (!viewState.isAdmin())
    return (
      <SettingsPage title="Organization settings">
        <p class="muted">Only owners and administrators manage the organization.</p>
      </SettingsPage>
    );
  return (
    <SettingsPage
      title="Organization settings"
      tabs={TABS}
      current={tab}
      label="Organization sections"
      onChoose={(t) => showView({ kind: 'admin', tab: t })}
    >
      {tab === 'organization' && <OrganizationSettings />}
      {tab === 'users' && <Users />}
      {tab === 'invitations' && <Invitations />}
    </SettingsPage>
  );
}

const MAIN_SETTINGS: [string, string][] = [
  ['invite_required', 'Invitations are required to join'],
  ['emails_restricted_to_domains', "Restrict new accounts to the organization's email domains"],
  ['allow_message_editing', 'Allow people to edit their messages'],
  ['mandatory_topics', 'Require topics in channel messages'],
  ['enable_spectator_access', 'Allow web-public channels (readable without an account)'],
  ['send_welcome_emails', 'Send emails introducing the organization to new members'],
  ['inline_url_embed_preview', 'Show previews of linked websites'],
];

function OrganizationSettings() {
  const realm = viewState.realm;
  const [name, setName] = useState(String(realm.name ?? store.realmName));
  const [description, setDescription] = useState(String(realm.description ?? ''));
  const action = useAction();
  const toggles = useAction();
  const icon = useAction();
  const patch = (params: Record<string, string | number | boolean>) =>
    call('PATCH', '/realm', params);
  return (
    <>
      <SettingsForm
        label="Organization profile"
        action={action}
        submit="Save changes"
        onSubmit={() => {
          const params: Record<string, string> = {};
          if (name.trim() !== realm.name) params.name = name.trim();
          if (description !== (realm.description ?? '')) params.description = description;
          if (Object.keys(params).length) void action.run(() => patch(params));
        }}
      >
        <TextField
          label="Organization name"
          value={name}
          onValue={setName}
          input={{ required: true, maxLength: 40 }}
        />
        <TextField
          label="Organization description"
          value={description}
          onValue={setDescription}
          multiline
        />
      </SettingsForm>
      <ImageUpload
        legend="Organization icon"
        preview={
          isOurs(store.realmIcon) ? (
            <img class="realm-icon-preview" src={store.realmIcon} alt="The organization's icon" />
          ) : (
            <span class="realm-icon-preview" role="img" aria-label="The default icon">
              {store.realmName.slice(0, 1)}
            </span>
          )
        }
        upload={{ label: 'Upload an icon', route: '/realm/icon' }}
        reset={realm.icon_source === 'U' ? '/realm/icon' : undefined}
        action={icon}
      />
      <fieldset class="settings-form">
        <legend>Main settings</legend>
        <Switches
          items={MAIN_SETTINGS}
          values={realm}
          onChange={(key, on) => void toggles.run(() => patch({ [key]: on }))}
        />
        <ActionStatus action={toggles} />
      </fieldset>
    </>
  );
}

interface Invite {
  id: number;
  email?: string;
  is_multiuse: boolean;
  link_url?: string;
  invited_as: number;
  expiry_date: number | null;
  invited_by_user_id: number;
}

const EXPIRY: [string, string][] = [
  ['1440', '1 day'],
  ['14400', '10 days'],
  ['43200', '30 days'],
  ['', 'Never'],
];

function Invitations() {
  const [emails, setEmails] = useState('');
  const [role, setRole] = useState('400');
  const [expiry, setExpiry] = useState('14400');
  const [channels, setChannels] = useState<Set<number>>(new Set());
  const [link, setLink] = useState('');
  const [invites, setInvites] = useState<Invite[]>([]);
  const send = useAction();
  const list = useAction();
  const load = () =>
    void call<{ invites: Invite[] }>('GET', '/invites').then((r) => setInvites(r.invites));
  useEffect(load, []);
  const common = () => ({
    invite_as: Number(role),
    stream_ids: [...channels],
    invite_expires_in_minutes: expiry ? Number(expiry) : 'null',
  });
  const after = (ok: boolean) => {
    if (ok) load();
  };
  return (
    <>
      <form
        class="settings-form"
        aria-label="Invite people"
        onSubmit={(e) => {
          e.preventDefault();
          void send
            .run(() =>
              call('POST', '/invites', {
                invitee_emails: emails
                  .split(/[\s,;]+/)
                  .filter(Boolean)
                  .join(','),
                ...common(),
              }),
            )
            .then((ok) => {
              if (ok) setEmails('');
              after(ok);
            });
        }}
      >
        <h2>Invite people</h2>
        <label>
          Emails (one per line, or separated by commas)
          <textarea
            value={emails}
            onInput={(e) => setEmails((e.currentTarget as HTMLTextAreaElement).value)}
          />
        </label>
        <label>
          Invite as
          <select
            value={role}
            onChange={(e) => setRole((e.currentTarget as HTMLSelectElement).value)}
          >
            {grantableRoles().map(([r, name]) => (
              <option key={r} value={String(r)}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label>
          The invitation expires after
          <select
            value={expiry}
            onChange={(e) => setExpiry((e.currentTarget as HTMLSelectElement).value)}
          >
            {EXPIRY.map(([value, label]) => (
              <option key={label} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <fieldset>
          <legend>Channels they join</legend>
          {allChannels().map((c) => (
            <label key={c.stream_id} class="check">
              <input
                type="checkbox"
                checked={channels.has(c.stream_id)}
                onChange={(e) => {
                  const next = new Set(channels);
                  if ((e.currentTarget as HTMLInputElement).checked) next.add(c.stream_id);
                  else next.delete(c.stream_id);
                  setChannels(next);
                }}
              />
              #{c.name}
            </label>
          ))}
        </fieldset>
        <ActionStatus action={send} saved="Invitations sent." />
        <div class="form-actions wrap">
          <button type="submit" disabled={send.busy}>
            Send invitations
          </button>
          <button
            type="button"
            class="secondary"
            onClick={() =>
              void send
                .run(async () => {
                  const r = await call<{ invite_link: string }>(
                    'POST',
                    '/invites/multiuse',
                    common(),
                  );
                  setLink(r.invite_link);
                })
                .then(after)
            }
          >
            Create an invitation link
          </button>
        </div>
        {link && (
          <label>
            Invitation link
            <input
              readOnly
              value={link}
              class="invite-link"
              onFocus={(e) => (e.currentTarget as HTMLInputElement).select()}
            />
          </label>
        )}
      </form>
      <section class="settings-form" aria-labelledby="invites-heading">
        <h2 id="invites-heading">Invitations</h2>
        <ActionStatus action={list} saved="Done." />
        {!invites.length && <p class="muted">No invitations are waiting.</p>}
        <ul class="invite-list">
          {invites.map((i) => (
            <li key={`${i.is_multiuse}${i.id}`} class="invite-row">
              <span class="invite-who">
                {i.is_multiuse ? 'Invitation link' : i.email}
                <span class="muted">
                  {' '}
                  as {ROLE_NAMES[i.invited_as] ?? 'member'}, by{' '}
                  {store.userName(i.invited_by_user_id)}
                  {i.expiry_date
                    ? `, expires ${new Date(i.expiry_date * 1000).toLocaleDateString()}`
                    : ', never expires'}
                </span>
              </span>
              {!i.is_multiuse && (
                <button
                  class="secondary small"
                  aria-label={`Resend the invitation to ${i.email}`}
                  onClick={() =>
                    void list.run(() => call('POST', `/invites/${i.id}/resend`)).then(after)
                  }
                >
                  Resend
                </button>
              )}
              <button
                class="danger small"
                aria-label={`Revoke the invitation ${i.is_multiuse ? 'link' : `to ${i.email}`}`}
                onClick={() =>
                  void list
                    .run(() =>
                      call(
                        'DELETE',
                        i.is_multiuse ? `/invites/multiuse/${i.id}` : `/invites/${i.id}`,
                      ),
                    )
                    .then(after)
                }
              >
                Revoke
              </button>
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
