import { randomBytes } from 'node:crypto';
import type { Realm, User, UserGroup } from '../generated/prisma/client';
import type { AppContext } from '../libs/core/context';
import { createRealm } from '../libs/domain/realms/create-realm';
import { createUser } from '../libs/domain/users/create-user';
import { BotType, Role, type RoleCode } from '../libs/domain/users/roles';
import { basicAuth } from './harness';

export interface TestUser {
  user: User;
  apiKey: string;
  email: string;
  /** Value for the Authorization header. */
  auth: string;
}

export interface TestRealm {
  realm: Realm;
  owner: TestUser;
  /** Host header that reaches this organization. */
  host: string;
}

const unique = () => randomBytes(3).toString('hex');

function testUser(user: User, apiKey: string): TestUser {
  return { user, apiKey, email: user.email, auth: basicAuth(user.email, apiKey) };
}

export async function makeRealm(
  ctx: AppContext,
  options: { stringId?: string; name?: string; ownerPassword?: string } = {},
): Promise<TestRealm> {
  const stringId = options.stringId ?? `org${unique()}`;
  const created = await createRealm(ctx, {
    stringId,
    name: options.name ?? `Org ${stringId}`,
    owner: {
      email: `owner-${unique()}@example.com`,
      fullName: 'Olivia Owner',
      password: options.ownerPassword ?? null,
    },
  });
  return {
    realm: created.realm,
    owner: testUser(created.owner.user, created.owner.apiKey),
    host: stringId ? `${stringId}.${ctx.config.externalHost}` : ctx.config.externalHost,
  };
}

export async function makeUser(
  ctx: AppContext,
  realm: Realm,
  options: { role?: RoleCode; fullName?: string; email?: string; password?: string } = {},
): Promise<TestUser> {
  const created = await createUser(ctx, {
    realm,
    email: options.email ?? `user-${unique()}@example.com`,
    fullName: options.fullName ?? `User ${unique()}`,
    role: options.role ?? Role.MEMBER,
    password: options.password ?? null,
  });
  return testUser(created.user, created.apiKey);
}

export async function makeBot(ctx: AppContext, realm: Realm, owner: User): Promise<TestUser> {
  const created = await createUser(ctx, {
    realm,
    email: `bot-${unique()}-bot@${ctx.config.externalHost.replace(/:\d+$/, '')}`,
    fullName: `Bot ${unique()}`,
    role: Role.MEMBER,
    bot: { type: BotType.GENERIC, ownerId: owner.id },
  });
  return testUser(created.user, created.apiKey);
}

/** A named user group as rows (no events): direct members, subgroups and any group settings. */
export async function makeUserGroup(
  ctx: AppContext,
  realm: Pick<Realm, 'id'>,
  options: {
    name?: string;
    members?: User[];
    subgroups?: number[];
    settings?: Partial<
      Pick<
        UserGroup,
        | 'canAddMembersGroupId'
        | 'canJoinGroupId'
        | 'canLeaveGroupId'
        | 'canManageGroupId'
        | 'canMentionGroupId'
        | 'canRemoveMembersGroupId'
      >
    >;
  } = {},
): Promise<number> {
  const group = await ctx.db.userGroup.create({
    data: {
      realmId: realm.id,
      name: options.name ?? `group-${unique()}`,
      ...options.settings,
      members: { create: (options.members ?? []).map((u) => ({ userId: u.id })) },
      subgroups: { create: (options.subgroups ?? []).map((id) => ({ subgroupId: id })) },
    },
  });
  return group.id;
}
