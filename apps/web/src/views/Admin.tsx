import { useState } from 'preact/hooks';
import { call } from '../api';
import { store } from '../store';
import { Invitations } from './admin/Invitations';
import { Users } from './admin/Users';
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
