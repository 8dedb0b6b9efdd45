/** Zulip's organization role codes (spec 2.1). */
export const Role = {
  OWNER: 100,
  ADMINISTRATOR: 200,
  MODERATOR: 300,
  MEMBER: 400,
  GUEST: 600,
} as const;

export type RoleCode = (typeof Role)[keyof typeof Role];

export const ROLE_CODES: readonly RoleCode[] = Object.values(Role);

export const ROLE_NAMES: Record<string, RoleCode> = {
  owner: Role.OWNER,
  admin: Role.ADMINISTRATOR,
  administrator: Role.ADMINISTRATOR,
  moderator: Role.MODERATOR,
  member: Role.MEMBER,
  guest: Role.GUEST,
};

export const isRoleCode = (value: number): value is RoleCode =>
  (ROLE_CODES as readonly number[]).includes(value);

export const BotType = {
  GENERIC: 1,
  INCOMING_WEBHOOK: 2,
  OUTGOING_WEBHOOK: 3,
  EMBEDDED: 4,
} as const;
