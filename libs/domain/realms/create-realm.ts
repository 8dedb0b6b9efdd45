import type { Realm, User } from '../../../generated/prisma/client';
import { badRequest } from '../../core/errors';
import { inTransaction } from '../../events/outbox';
import { insertChannel } from '../channels/insert-channel';
import type { AppContext } from '../../core/context';
import { createSystemGroups } from '../groups/system-groups';
import { createUserInTransaction, hashPassword, type CreatedUser } from '../users/create-user';
import { BotType, Role } from '../users/roles';
import { fakeEmailDomain } from '../users/user-access';
import { checkSubdomainReachable } from './ip-host';

export interface NewRealmInput {
  /** Subdomain; '' for the root organization. */
  stringId: string;
  name: string;
  owner: { email: string; fullName: string; password?: string | null };
}

export interface CreatedRealm {
  realm: Realm;
  owner: CreatedUser;
  notificationBot: User;
}

const SUBDOMAIN = /^([a-z0-9]|[a-z0-9][a-z0-9-]{0,38}[a-z0-9])$/;
const RESERVED_SUBDOMAINS = new Set(['www', 'api', 'static', 'admin', 'mail', 'events']);

export const NOTIFICATION_BOT_NAME = 'Notification Bot';
export const GENERAL_CHANNEL = 'general';

export function checkSubdomain(stringId: string): string {
  const value = stringId.trim().toLowerCase();
  if (value === '') return value;
  if (!SUBDOMAIN.test(value)) {
    throw badRequest(
      "Subdomain can only have lowercase letters, numbers, and '-'s, and must not start or end with a '-'.",
    );
  }
  if (RESERVED_SUBDOMAINS.has(value))
    throw badRequest('Subdomain reserved. Please choose a different one.');
  return value;
}

/**
 * A new organization: its system groups and default permissions, a notification bot for
 * automated messages, its owner, and a default #general channel the owner is subscribed to.
 */
export async function createRealm(ctx: AppContext, input: NewRealmInput): Promise<CreatedRealm> {
  const stringId = checkSubdomain(input.stringId);
  checkSubdomainReachable(stringId, ctx.config);
  const name = input.name.trim();
  if (!name || name.length > 40) throw badRequest('Organization name must be 1 to 40 characters.');
  const passwordHash = input.owner.password ? await hashPassword(ctx, input.owner.password) : null;

  return inTransaction(ctx, async (tx, events) => {
    if (await tx.realm.findUnique({ where: { stringId }, select: { id: true } })) {
      throw badRequest('Subdomain already in use. Please choose a different one.');
    }
    const created = await tx.realm.create({ data: { stringId, name } });
    const groups = await createSystemGroups(tx, created.id);
    await tx.realm.update({
      where: { id: created.id },
      data: {
        canAccessAllUsersGroupId: groups['role:everyone'],
        canAddCustomEmojiGroupId: groups['role:members'],
        canAddSubscribersGroupId: groups['role:members'],
        canCreateBotsGroupId: groups['role:members'],
        canCreateGroupsId: groups['role:members'],
        canCreatePrivateChannelGroupId: groups['role:members'],
        canCreatePublicChannelGroupId: groups['role:members'],
        canCreateWebPublicChannelGroupId: groups['role:owners'],
        canCreateWriteOnlyBotsGroupId: groups['role:members'],
        canDeleteAnyMessageGroupId: groups['role:administrators'],
        canDeleteOwnMessageGroupId: groups['role:everyone'],
        canInviteUsersGroupId: groups['role:members'],
        canManageAllGroupsId: groups['role:owners'],
        canManageBillingGroupId: groups['role:administrators'],
        canMentionManyUsersGroupId: groups['role:administrators'],
        canMoveMessagesBetweenChannelsGroupId: groups['role:members'],
        canMoveMessagesBetweenTopicsGroupId: groups['role:everyone'],
        canResolveTopicsGroupId: groups['role:everyone'],
        canSetDeleteMessagePolicyGroupId: groups['role:moderators'],
        canSetTopicsPolicyGroupId: groups['role:moderators'],
        canSummarizeTopicsGroupId: groups['role:everyone'],
        createMultiuseInviteGroupId: groups['role:administrators'],
        directMessageInitiatorGroupId: groups['role:everyone'],
        directMessagePermissionGroupId: groups['role:everyone'],
      },
    });
    await tx.realmUserDefault.create({ data: { realmId: created.id } });
    await tx.presenceSequence.create({ data: { realmId: created.id } });

    const general = await insertChannel(tx, groups, {
      realmId: created.id,
      name: GENERAL_CHANNEL,
      description: 'Everyone is added to this channel by default.',
      renderedDescription: '<p>Everyone is added to this channel by default.</p>',
      creatorId: null,
    });
    await tx.defaultStream.create({ data: { realmId: created.id, streamId: general.id } });
    const realm = await tx.realm.update({
      where: { id: created.id },
      data: { newStreamAnnouncementsStreamId: general.id, signupAnnouncementsStreamId: general.id },
    });

    const bot = await createUserInTransaction(ctx, tx, events, {
      realm,
      email: `notification-bot@${fakeEmailDomain({ stringId }, ctx.config)}`,
      fullName: NOTIFICATION_BOT_NAME,
      role: Role.MEMBER,
      bot: { type: BotType.GENERIC, ownerId: null, system: true },
      passwordHash: null,
    });
    const owner = await createUserInTransaction(ctx, tx, events, {
      realm,
      email: input.owner.email,
      fullName: input.owner.fullName,
      role: Role.OWNER,
      passwordHash,
    });
    return { realm, owner, notificationBot: bot.user };
  });
}
