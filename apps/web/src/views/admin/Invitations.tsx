import { useEffect, useState } from 'preact/hooks';
import { call } from '../../api';
import { store } from '../../store';
import { useAction, ActionStatus } from '../action';
import { allChannels } from '../Channels';
import { ROLE_NAMES } from '../People';
import { grantableRoles, RoleOptions } from './roles';

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

/** Invitations: sending them (by email or as a link), and those still waiting. */
export function Invitations() {
  const [invites, setInvites] = useState<Invite[]>([]);
  const reload = () =>
    void call<{ invites: Invite[] }>('GET', '/invites').then((r) => setInvites(r.invites));
  useEffect(reload, []);
  const after = (ok: boolean) => {
    if (ok) reload();
  };
  return (
    <>
      <InviteForm after={after} />
      <InviteList invites={invites} after={after} />
    </>
  );
}

/** The addresses typed (one per line, or separated by commas or semicolons), comma-separated. */
function emailList(text: string): string {
  return text
    .split(/[\s,;]+/)
    .filter(Boolean)
    .join(',');
}

function InviteForm({ after }: { after: (ok: boolean) => void }) {
  const [emails, setEmails] = useState('');
  const [role, setRole] = useState('400');
  const [expiry, setExpiry] = useState('14400');
  const [channels, setChannels] = useState<Set<number>>(new Set());
  const [link, setLink] = useState('');
  const send = useAction();
  const common = () => ({
    invite_as: Number(role),
    stream_ids: [...channels],
    invite_expires_in_minutes: expiry ? Number(expiry) : 'null',
  });
  const createLink = async () => {
    const r = await call<{ invite_link: string }>('POST', '/invites/multiuse', common());
    setLink(r.invite_link);
  };
  return (
    <form
      class="settings-form"
      aria-label="Invite people"
      onSubmit={(e) => {
        e.preventDefault();
        void send
          .run(() => call('POST', '/invites', { invitee_emails: emailList(emails), ...common() }))
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
      <InviteTerms role={role} onRole={setRole} expiry={expiry} onExpiry={setExpiry} />
      <ChannelChoice chosen={channels} onChange={setChannels} />
      <ActionStatus action={send} saved="Invitations sent." />
      <div class="form-actions wrap">
        <button type="submit" disabled={send.busy}>
          Send invitations
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() => void send.run(createLink).then(after)}
        >
          Create an invitation link
        </button>
      </div>
      {link && <InviteLink link={link} />}
    </form>
  );
}

/** The role an invitation gives, and how long it lasts. */
function InviteTerms({
  role,
  onRole,
  expiry,
  onExpiry,
}: {
  role: string;
  onRole: (role: string) => void;
  expiry: string;
  onExpiry: (expiry: string) => void;
}) {
  return (
    <>
      <label>
        Invite as
        <select value={role} onChange={(e) => onRole((e.currentTarget as HTMLSelectElement).value)}>
          <RoleOptions roles={grantableRoles()} />
        </select>
      </label>
      <label>
        The invitation expires after
        <select
          value={expiry}
          onChange={(e) => onExpiry((e.currentTarget as HTMLSelectElement).value)}
        >
          {EXPIRY.map(([value, label]) => (
            <option key={label} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
    </>
  );
}

/** The channels the invited join, one checkbox each. */
function ChannelChoice({
  chosen,
  onChange,
}: {
  chosen: Set<number>;
  onChange: (chosen: Set<number>) => void;
}) {
  return (
    <fieldset>
      <legend>Channels they join</legend>
      {allChannels().map((c) => (
        <label key={c.stream_id} class="check">
          <input
            type="checkbox"
            checked={chosen.has(c.stream_id)}
            onChange={(e) => {
              const next = new Set(chosen);
              if ((e.currentTarget as HTMLInputElement).checked) next.add(c.stream_id);
              else next.delete(c.stream_id);
              onChange(next);
            }}
          />
          #{c.name}
        </label>
      ))}
    </fieldset>
  );
}

function InviteLink({ link }: { link: string }) {
  return (
    <label>
      Invitation link
      <input
        readOnly
        value={link}
        class="invite-link"
        onFocus={(e) => (e.currentTarget as HTMLInputElement).select()}
      />
    </label>
  );
}

/** The invitations still waiting, each to resend (by email) or revoke. */
function InviteList({ invites, after }: { invites: Invite[]; after: (ok: boolean) => void }) {
  const list = useAction();
  const run = (task: () => Promise<unknown>) => void list.run(task).then(after);
  return (
    <section class="settings-form" aria-labelledby="invites-heading">
      <h2 id="invites-heading">Invitations</h2>
      <ActionStatus action={list} saved="Done." />
      {!invites.length && <p class="muted">No invitations are waiting.</p>}
      <ul class="invite-list">
        {invites.map((i) => (
          <InviteRow key={`${i.is_multiuse}${i.id}`} invite={i} run={run} />
        ))}
      </ul>
    </section>
  );
}

function InviteRow({
  invite: i,
  run,
}: {
  invite: Invite;
  run: (task: () => Promise<unknown>) => void;
}) {
  return (
    <li class="invite-row">
      <span class="invite-who">
        {i.is_multiuse ? 'Invitation link' : i.email}
        <span class="muted">
          {' '}
          as {ROLE_NAMES[i.invited_as] ?? 'member'}, by {store.userName(i.invited_by_user_id)}
          {i.expiry_date
            ? `, expires ${new Date(i.expiry_date * 1000).toLocaleDateString()}`
            : ', never expires'}
        </span>
      </span>
      {!i.is_multiuse && (
        <button
          class="secondary small"
          aria-label={`Resend the invitation to ${i.email}`}
          onClick={() => run(() => call('POST', `/invites/${i.id}/resend`))}
        >
          Resend
        </button>
      )}
      <button
        class="danger small"
        aria-label={`Revoke the invitation ${i.is_multiuse ? 'link' : `to ${i.email}`}`}
        onClick={() =>
          run(() =>
            call('DELETE', i.is_multiuse ? `/invites/multiuse/${i.id}` : `/invites/${i.id}`),
          )
        }
      >
        Revoke
      </button>
    </li>
  );
}
