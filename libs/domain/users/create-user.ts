import bcrypt from 'bcrypt';
import type { Tx } from '../../db/client';
import { lockKey } from '../../db/locks';
import type { Realm, Stream, User } from '../../../generated/prisma/client';
import { badRequest } from '../../core/errors';
import { inTransaction, type EventSink } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { setRoleGroupMembership, systemGroupIds } from '../groups/system-groups';
import { newUserSettings } from '../realm-user-defaults/user-defaults';
import { RecipientType } from '../recipients';
import { emitPeerAdd } from '../subscriptions/peer-events';
import { insertSubscriptions } from '../subscriptions/insert-subscriptions';
import { newStoredApiKey } from './api-keys';
import { usersWhoCanAccess } from '../permissions/users';
import { BotType, type RoleCode } from './roles';
import { emitUserAdd } from './user-add-events';
import { fakeEmailDomain, inaccessibleUser } from './user-access';
import { checkFullName, normalizeEmail } from './validate';
import { realmUserEvent } from '../../protocol/events/realm-user';

export interface NewUserInput {
  realm: Realm;
  email: string;
  fullName: string;
  role: RoleCode;
  /** Plain password; null or absent: no password login. */
  password?: string | null;
  /** `system`: one of the server's own bots (see User.isSystemBot). */
  bot?: { type: number; ownerId: number | null; system?: boolean };
  timezone?: string;
  /** false: skip the organization's default channels (an invitation without them). */
  defaultChannels?: boolean;
  /** Channels to subscribe the new user to besides the default ones (an invitation's). */
  channelIds?: number[];
}

export interface CreatedUser {
  user: User;
  apiKey: string;
}

export async function hashPassword(ctx: AppContext, password: string): Promise<string> {
  return bcrypt.hash(password, ctx.config.bcryptRounds);
}

/**
 * Holds an address until the transaction ends: two accounts created at once with one email take
 * turns, and the second is told the address is taken, as it would be without the race.
 */
export const lockEmail = (tx: Tx, realmId: number, email: string): Promise<void> =>
  lockKey(tx, `user-email:${realmId}:${email.toLowerCase()}`);

/**
 * Creates a user or bot inside the caller's transaction: the row with a fresh API key, its
 * personal recipient, its system-group memberships and (for people) the organization's default
 * channels plus any requested ones; tells the organization with `realm_user` add events and the
 * channels' other subscribers with `peer_add` events, as Zulip's `do_create_user` does.
 */
export async function createUserInTransaction(
  ctx: AppContext,
  tx: Tx,
  events: EventSink,
  input: NewUserInput & { passwordHash: string | null },
): Promise<CreatedUser> {
  const email = normalizeEmail(input.email);
  const fullName = checkFullName(input.fullName);
  if (input.bot && !Object.values(BotType).includes(input.bot.type as never)) {
    throw badRequest('Invalid bot type');
  }
  await lockEmail(tx, input.realm.id, email);
  const taken = await tx.user.findFirst({
    where: { realmId: input.realm.id, OR: [{ email }, { deliveryEmail: email }] },
    select: { id: true },
  });
  if (taken) throw badRequest(`Email '${email}' already in use`);

  const { apiKey, stored } = newStoredApiKey(ctx.config.secretKey);
  const created = await tx.user.create({
    data: {
      // People start with the organization's default settings; bots keep the built-in ones.
      ...(input.bot ? {} : await newUserSettings(tx, input.realm.id)),
      realmId: input.realm.id,
      email,
      deliveryEmail: email,
      fullName,
      role: input.role,
      isBot: Boolean(input.bot),
      botType: input.bot?.type ?? null,
      botOwnerId: input.bot?.ownerId ?? null,
      isSystemBot: input.bot?.system ?? false,
      passwordHash: input.passwordHash,
      timezone: input.timezone ?? '',
      ...stored,
    },
  });
  const recipient = await tx.recipient.create({
    data: { type: RecipientType.PERSONAL, typeId: created.id },
  });
  const user = await tx.user.update({
    where: { id: created.id },
    data: { recipientId: recipient.id },
  });

  const groups = await systemGroupIds(tx, input.realm.id);
  await setRoleGroupMembership(tx, events, {
    realmId: input.realm.id,
    groups,
    userId: user.id,
    role: input.role,
    isFullMember: input.realm.waitingPeriodThreshold === 0,
  });

  // Subscribed before the access check below, so guests sharing a channel meet the real user.
  const channels = user.isBot ? [] : await initialChannels(tx, input);
  const fresh = await insertSubscriptions(
    tx,
    channels.map((c) => ({ userId: user.id, recipientId: c.recipientId as number })),
  );
  // A system bot is not one of the organization's users: clients meet it in cross_realm_bots.
  if (user.isSystemBot) return { user, apiKey };

  const audience = await tx.user.findMany({
    where: { realmId: input.realm.id, isActive: true },
    select: { id: true, role: true },
  });
  // Guests who cannot access the new user (can_access_all_users_group) meet an "Unknown user",
  // which clients declaring user_list_incomplete do without (libs/protocol/events/realm-user.ts).
  const accessing = new Set(await usersWhoCanAccess(tx, user));
  await events.emit(
    input.realm.id,
    realmUserEvent({
      op: 'add',
      person: inaccessibleUser(user.id, fakeEmailDomain(input.realm, ctx.config)),
      internal: { inaccessibleUser: true },
    }),
    audience.filter((viewer) => !accessing.has(viewer.id)).map((v) => v.id),
  );
  await emitUserAdd(
    events,
    user,
    audience.filter((viewer) => accessing.has(viewer.id)),
    {},
  );
  // After the realm_user add, so peers learn of the subscriber after the user.
  await emitPeerAdd(tx, events, input.realm.id, channels, fresh);
  return { user, apiKey };
}

/** The organization's default channels (unless left out) and the requested ones, unarchived. */
async function initialChannels(tx: Tx, input: NewUserInput): Promise<Stream[]> {
  const defaults =
    input.defaultChannels === false
      ? []
      : await tx.defaultStream.findMany({
          where: { realmId: input.realm.id },
          select: { streamId: true },
        });
  return tx.stream.findMany({
    where: {
      realmId: input.realm.id,
      id: { in: [...defaults.map((d) => d.streamId), ...(input.channelIds ?? [])] },
      isArchived: false,
      recipientId: { not: null },
    },
    orderBy: { id: 'asc' },
  });
}

/** Creates a user or bot in its own transaction (operator CLI, sign-up, bot creation). */
export async function createUser(ctx: AppContext, input: NewUserInput): Promise<CreatedUser> {
  const passwordHash = input.password ? await hashPassword(ctx, input.password) : null;
  return inTransaction(ctx, (tx, events) =>
    createUserInTransaction(ctx, tx, events, { ...input, passwordHash }),
  );
}
