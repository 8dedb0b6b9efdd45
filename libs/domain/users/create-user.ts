import bcrypt from 'bcrypt';
import type { Tx } from '../../db/client';
import type { Realm, User } from '../../../generated/prisma/client';
import { badRequest } from '../../http/errors';
import { inTransaction, type EventSink } from '../../events/outbox';
import type { AppContext } from '../context';
import { setRoleGroupMembership, systemGroupIds } from '../groups/system-groups';
import { newUserSettings } from '../realm-user-defaults/user-defaults';
import { RecipientType } from '../recipients';
import { insertSubscriptions } from '../subscriptions/insert-subscriptions';
import { newStoredApiKey } from './api-keys';
import { canSeeDeliveryEmail } from '../permissions/email-visibility';
import { usersWhoCanAccess } from '../permissions/users';
import { formatUser } from './format-user';
import { BotType, type RoleCode } from './roles';
import { fakeEmailDomain, inaccessibleUser } from './user-access';
import { checkFullName, normalizeEmail } from './validate';

export interface NewUserInput {
  realm: Realm;
  email: string;
  fullName: string;
  role: RoleCode;
  /** Plain password; null or absent: no password login. */
  password?: string | null;
  bot?: { type: number; ownerId: number | null };
  timezone?: string;
  /** false: skip the organization's default channels (an invitation without them). */
  defaultChannels?: boolean;
}

export interface CreatedUser {
  user: User;
  apiKey: string;
}

export async function hashPassword(ctx: AppContext, password: string): Promise<string> {
  return bcrypt.hash(password, ctx.config.bcryptRounds);
}

/**
 * Creates a user or bot inside the caller's transaction: the row with a fresh API key, its
 * personal recipient, its system-group memberships and (for people) the organization's default
 * channels; tells the organization with a `realm_user` add event.
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
  await setRoleGroupMembership(
    tx,
    groups,
    user.id,
    input.role,
    input.realm.waitingPeriodThreshold === 0,
  );

  if (!user.isBot && input.defaultChannels !== false) {
    const defaults = await tx.defaultStream.findMany({
      where: { realmId: input.realm.id, stream: { isArchived: false } },
      select: { stream: { select: { recipientId: true } } },
    });
    await insertSubscriptions(
      tx,
      defaults.flatMap((d) =>
        d.stream.recipientId ? [{ userId: user.id, recipientId: d.stream.recipientId }] : [],
      ),
    );
  }

  const audience = await tx.user.findMany({
    where: { realmId: input.realm.id, isActive: true, isBot: false },
    select: { id: true, role: true },
  });
  // Guests who cannot access the new user (can_access_all_users_group) meet an "Unknown user".
  const accessing = new Set(await usersWhoCanAccess(tx, user));
  const [withAccess, withoutAccess] = partition(audience, (viewer) => accessing.has(viewer.id));
  await events.emit(
    input.realm.id,
    {
      type: 'realm_user',
      op: 'add',
      person: inaccessibleUser(user.id, fakeEmailDomain(input.realm, ctx.config)),
    },
    withoutAccess.map((v) => v.id),
  );
  // The person differs between viewers only in whether delivery_email is shown: two events at most.
  const [seeing, notSeeing] = partition(withAccess, (viewer) => canSeeDeliveryEmail(viewer, user));
  for (const viewers of [seeing, notSeeing]) {
    if (viewers.length === 0) continue;
    const person = formatUser(user, { viewer: viewers[0], clientGravatar: false, profileData: {} });
    await events.emit(
      input.realm.id,
      { type: 'realm_user', op: 'add', person },
      viewers.map((v) => v.id),
    );
  }
  return { user, apiKey };
}

function partition<T>(items: T[], test: (item: T) => boolean): [T[], T[]] {
  const yes: T[] = [];
  const no: T[] = [];
  for (const item of items) (test(item) ? yes : no).push(item);
  return [yes, no];
}

/** Creates a user or bot in its own transaction (operator CLI, sign-up, bot creation). */
export async function createUser(ctx: AppContext, input: NewUserInput): Promise<CreatedUser> {
  const passwordHash = input.password ? await hashPassword(ctx, input.password) : null;
  return inTransaction(ctx, (tx, events) =>
    createUserInTransaction(ctx, tx, events, { ...input, passwordHash }),
  );
}
