import { ROLE_NAMES } from '../People';
import { viewState } from '../state';

/** Roles an administrator may give; only owners make owners, as in Zulip. */
export function grantableRoles(): [number, string][] {
  return Object.entries(ROLE_NAMES)
    .map(([role, name]): [number, string] => [Number(role), name])
    .filter(([role]) => role !== 100 || viewState.role === 100);
}

/** The options of a role `<select>`, each role's code as its value. */
export function RoleOptions({ roles }: { roles: [number, string][] }) {
  return (
    <>
      {roles.map(([role, name]) => (
        <option key={role} value={String(role)}>
          {name}
        </option>
      ))}
    </>
  );
}
