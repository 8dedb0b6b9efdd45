import { FilterField } from '../forms';
import { useEffect, useState } from 'preact/hooks';
import { call } from '../../api';
import { store } from '../../store';
import type { User } from '../../types';
import { useAction, ActionStatus } from '../action';
import { Avatar } from '../People';
import { viewState } from '../state';
import { grantableRoles, RoleOptions } from './roles';

/** Runs a change to a user, and reloads the list once it is done. */
type RunChange = (task: () => Promise<unknown>) => void;

/** The organization's people (bots left out), fetched again when a role or activation changes. */
function useMembers(): { users: User[]; reload: () => void } {
  const [users, setUsers] = useState<User[]>([]);
  const reload = () =>
    void call<{ members: User[] }>('GET', '/users').then((r) =>
      setUsers(r.members.filter((u) => !u.is_bot)),
    );
  // Fetched again when the store changes (a role or deactivation event).
  const version = [...store.users.values()].map((u) => `${u.role}${u.is_active}`).join();
  useEffect(reload, [version]);
  return { users, reload };
}

/** The users whose name or email holds `filter`, active ones first, then by name. */
function usersShown(users: User[], filter: string): User[] {
  return users
    .filter(
      (u) => !filter || `${u.full_name} ${u.email}`.toLowerCase().includes(filter.toLowerCase()),
    )
    .sort(
      (a, b) => Number(b.is_active) - Number(a.is_active) || a.full_name.localeCompare(b.full_name),
    );
}

/** The organization's users, each with their role and (de)activation, for administrators. */
export function Users() {
  const { users, reload } = useMembers();
  const [filter, setFilter] = useState('');
  const action = useAction();
  const run: RunChange = (task) =>
    void action.run(task).then((ok) => {
      if (ok) reload();
    });
  return (
    <div class="settings-form">
      <FilterField label="Filter users" value={filter} onValue={setFilter} />
      <ActionStatus action={action} />
      <table class="admin-users">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Role</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {usersShown(users, filter).map((u) => (
            <UserRow key={u.user_id} user={u} run={run} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function UserRow({ user, run }: { user: User; run: RunChange }) {
  const self = user.user_id === store.me;
  return (
    <tr class={user.is_active ? undefined : 'deactivated'}>
      <td>
        <span class="admin-user">
          <Avatar user={user} size={24} />
          <span>
            {user.full_name}
            <span class="muted admin-email">{user.email}</span>
          </span>
        </span>
      </td>
      <td>
        <RoleSelect user={user} self={self} run={run} />
      </td>
      <td>{!self && <ActivationButton user={user} run={run} />}</td>
    </tr>
  );
}

/** A user's role; only an owner changes an owner's, and nobody their own. */
function RoleSelect({ user, self, run }: { user: User; self: boolean; run: RunChange }) {
  const ownerOutOfReach = user.role === 100 && viewState.role !== 100;
  return (
    <select
      aria-label={`Role of ${user.full_name}`}
      value={String(user.role ?? 400)}
      disabled={self || !user.is_active || ownerOutOfReach}
      onChange={(e) =>
        run(() =>
          call('PATCH', `/users/${user.user_id}`, {
            role: Number((e.currentTarget as HTMLSelectElement).value),
          }),
        )
      }
    >
      <RoleOptions roles={grantableRoles().concat(ownerOutOfReach ? [[100, 'Owner']] : [])} />
    </select>
  );
}

function ActivationButton({ user, run }: { user: User; run: RunChange }) {
  return user.is_active ? (
    <button
      class="danger small"
      aria-label={`Deactivate ${user.full_name}`}
      onClick={() => run(() => call('DELETE', `/users/${user.user_id}`))}
    >
      Deactivate
    </button>
  ) : (
    <button
      class="small"
      aria-label={`Reactivate ${user.full_name}`}
      onClick={() => run(() => call('POST', `/users/${user.user_id}/reactivate`))}
    >
      Reactivate
    </button>
  );
}
