import type { ScimClient, User } from '../../../generated/prisma/client';
import { ApiError } from '../../core/errors';
import { Role, type RoleCode } from '../users/roles';
import { checkFullName, normalizeEmail } from '../users/validate';
import { scimBadRequest, scimNotImplemented } from './scim-errors';

export const SCIM_USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const SCIM_PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** Zulip's UserProfile.ROLE_ID_TO_API_NAME, the values of the SCIM `role` attribute. */
const ROLE_NAMES: Record<string, RoleCode> = {
  owner: Role.OWNER,
  administrator: Role.ADMINISTRATOR,
  moderator: Role.MODERATOR,
  member: Role.MEMBER,
  guest: Role.GUEST,
};
const roleName = (role: number) =>
  Object.keys(ROLE_NAMES).find((name) => ROLE_NAMES[name] === role) ?? 'member';

type NameStyle = Pick<ScimClient, 'nameFormattedIncluded'>;

/**
 * A user as a SCIM User resource, as Zulip's ZulipSCIMUser.to_dict writes it: `userName` is the
 * delivery email; the name is `name.formatted`, or for clients that want given and family names
 * (Okta) the full name split at its first space.
 */
export function toScimUser(user: User, client: NameStyle, realmUrl: string) {
  const [given, ...rest] = user.fullName.split(' ');
  return {
    schemas: [SCIM_USER_SCHEMA],
    id: String(user.id),
    userName: user.deliveryEmail,
    name: client.nameFormattedIncluded
      ? { formatted: user.fullName }
      : { givenName: given, familyName: rest.join(' ') },
    displayName: user.fullName,
    active: user.isActive,
    role: roleName(user.role),
    meta: {
      resourceType: 'User',
      created: user.dateJoined.toISOString(),
      lastModified: user.dateJoined.toISOString(),
      location: `${realmUrl}/scim/v2/Users/${user.id}`,
    },
  };
}

/** What a request asks to change (absent: unchanged). */
export interface ScimUserChange {
  email?: string;
  fullName?: string;
  active?: boolean;
  role?: RoleCode;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Our own validation refusals, told in SCIM's form. */
function scimChecked<T>(check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (err instanceof ApiError) throw scimBadRequest(err.message, 'invalidValue');
    throw err;
  }
}

const emailValue = (value: unknown) => {
  if (typeof value !== 'string') throw scimBadRequest('userName must be a string.', 'invalidValue');
  return scimChecked(() => normalizeEmail(value));
};
const nameValue = (value: unknown) => {
  if (typeof value !== 'string') throw scimBadRequest('The name must be a string.', 'invalidValue');
  return scimChecked(() => checkFullName(value));
};
const activeValue = (value: unknown) => {
  if (typeof value !== 'boolean') throw scimBadRequest('active must be a boolean.', 'invalidValue');
  return value;
};
const roleValue = (value: unknown) => {
  const role = typeof value === 'string' ? ROLE_NAMES[value] : undefined;
  if (role === undefined) {
    throw scimBadRequest(
      `Invalid role: ${String(value)}. Valid values are: ${Object.keys(ROLE_NAMES).join(', ')}`,
      'invalidValue',
    );
  }
  return role;
};

/**
 * A whole User resource (POST creates, PUT replaces), read as Zulip's from_dict does: `userName`
 * required; the name from `name.formatted`, or given and family names for clients without it; a
 * new user must be active and named.
 */
export function changeFromResource(
  body: unknown,
  client: NameStyle,
  isNew: boolean,
): ScimUserChange {
  if (!isObject(body))
    throw scimBadRequest('The body must be a SCIM User resource.', 'invalidSyntax');
  if (body.userName === undefined) throw scimBadRequest('userName is required.', 'invalidValue');
  const change: ScimUserChange = { email: emailValue(body.userName) };
  const name = isObject(body.name) ? body.name : {};
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  const fullName = client.nameFormattedIncluded
    ? text(name.formatted)
    : `${text(name.givenName)} ${text(name.familyName)}`.trim();
  if (fullName) change.fullName = nameValue(fullName);
  else if (isNew) {
    throw scimBadRequest(
      'Must specify name.formatted, name.givenName or name.familyName when creating a new user',
      'invalidValue',
    );
  }
  if (body.active !== undefined) change.active = activeValue(body.active);
  if (isNew && change.active !== true) {
    throw scimBadRequest('New user must have active=True', 'invalidValue');
  }
  const { role } = body;
  if (role !== undefined && role !== null && role !== '') change.role = roleValue(role);
  return change;
}

/**
 * A PATCH request (RFC 7644 §3.5.2). As in Zulip, only `replace` operations, on `userName`,
 * `name.formatted`, `active` and `role`, with a path or as an object of them.
 */
export function changeFromPatch(body: unknown): ScimUserChange {
  if (
    !isObject(body) ||
    !Array.isArray(body.schemas) ||
    !body.schemas.includes(SCIM_PATCH_SCHEMA) ||
    !Array.isArray(body.Operations) ||
    body.Operations.length === 0
  ) {
    throw scimBadRequest(
      `A PATCH body names the ${SCIM_PATCH_SCHEMA} schema and lists its Operations.`,
      'invalidSyntax',
    );
  }
  const change: ScimUserChange = {};
  for (const operation of body.Operations as unknown[]) {
    if (!isObject(operation) || typeof operation.op !== 'string') {
      throw scimBadRequest('Each operation needs an "op".', 'invalidSyntax');
    }
    if (operation.op.toLowerCase() !== 'replace') throw scimNotImplemented();
    let entries: [string, unknown][];
    if (typeof operation.path === 'string') entries = [[operation.path, operation.value]];
    else if (isObject(operation.value)) entries = Object.entries(operation.value);
    else throw scimBadRequest('A replace without a path needs an object value.', 'invalidSyntax');
    for (const [path, value] of entries) {
      switch (path.toLowerCase()) {
        case 'username':
          change.email = emailValue(value);
          break;
        case 'name.formatted':
          change.fullName = nameValue(value);
          break;
        case 'active':
          change.active = activeValue(value);
          break;
        case 'role':
          change.role = roleValue(value);
          break;
        default:
          throw scimNotImplemented();
      }
    }
  }
  return change;
}
