import { Prisma, type User } from '../../../generated/prisma/client';
import { badRequest, insufficientPermission, type ApiError } from '../../core/errors';
import type { Db, Tx } from '../../db/client';
import type { AccessUser, Verdict } from './access';
import { RecipientType } from '../recipients';
import { isOwnerRole, isRealmAdmin, isRealmGuest, isRealmOwner } from './roles';
import { Role } from '../users/roles';
import { at } from '../../core/at';

/** Organization administrators (and owners) manage other users: edit, deactivate, reactivate. */
export const canAdministerUsers = (actor: Pick<User, 'role'>): boolean => isRealmAdmin(actor);

/** Changing another user's email needs an owner holding the can_change_user_emails permission. */
export const canChangeUserEmails = (actor: Pick<User, 'role' | 'canChangeUserEmails'>): boolean =>
  isRealmOwner(actor) && actor.canChangeUserEmails;

/** A user may change their own avatar unless the organization disabled it (administrators always may). */
export const canChangeOwnAvatar = (
  actor: Pick<User, 'role'>,
  realm: { avatarChangesDisabled: boolean },
): boolean => !realm.avatarChangesDisabled || isRealmAdmin(actor);

/** A user may edit their own email unless the organization disabled it (administrators always may). */
export const canChangeOwnEmail = (
  actor: Pick<User, 'role'>,
  realm: { emailChangesDisabled: boolean },
): boolean => !realm.emailChangesDisabled || isRealmAdmin(actor);

/** A user may edit their own name unless the organization disabled it (administrators always may). */
export const canChangeOwnName = (
  actor: Pick<User, 'role'>,
  realm: { nameChangesDisabled: boolean },
): boolean => !realm.nameChangesDisabled || isRealmAdmin(actor);

/**
 * The role granted: only owners grant the owner role (`actor` null: the operator, who may), and
 * bots are never owners. Whose role may change is `Permission.UserChangeRole`.
 */
export function requireGrantableRole(
  actor: Pick<User, 'role'> | null,
  target: Pick<User, 'isBot'>,
  role: number,
): void {
  if (actor && isOwnerRole(role) && !isRealmOwner(actor)) {
    throw badRequest('Must be an organization owner');
  }
  if (target.isBot && isOwnerRole(role)) throw badRequest('Bots cannot be organization owners');
}

/** The organization keeps an owner: is `target` its only active human owner? */
export async function isOnlyOwner(
  db: Db | Tx,
  target: Pick<User, 'role' | 'realmId'>,
): Promise<boolean> {
  if (!isRealmOwner(target)) return false;
  const owners = await db.user.count({
    where: { realmId: target.realmId, role: Role.OWNER, isActive: true, isBot: false },
  });
  return owners <= 1;
}

/**
 * Who receives organization-wide events (realm settings, emoji, linkifiers, ...): the active users
 * of the organization, bots included since they hold event queues too (Zulip's `active_user_ids`).
 * Events about one user go to `usersWhoCanAccess` instead.
 */
export async function realmUserAudience(db: Db | Tx, realmId: number): Promise<number[]> {
  const rows = await db.user.findMany({
    where: { realmId, isActive: true },
    select: { id: true },
  });
  return rows.map((r) => r.id);
}

/*
 * User access (`can_access_all_users_group`). The setting is `role:everyone` or `role:members`
 * (see realms/realm-group-settings.ts), so when it is not `role:everyone` exactly the guests lose
 * sight of other users. A guest can still access themselves, every bot, and everyone they share
 * a channel or a direct-message conversation with (1:1 conversations are direct-message groups
 * with subscriptions here too, see messages/addressees.ts). A deactivated user stays accessible
 * through conversations but not through channels, as in Zulip.
 */

/**
 * Whose sight of `target` can depend on shared conversations: a guest's, and never of a bot (bots
 * are accessible to everyone). Without `target`, whether the viewer's sight of anyone can.
 */
export const accessDependsOnConversations = (
  viewer: Pick<User, 'role'>,
  target?: Pick<User, 'isBot'>,
): boolean => isRealmGuest(viewer) && !target?.isBot;

/** SQL boolean: does this organization restrict what guests can access? */
const guestsRestricted = (realmId: number) => Prisma.sql`COALESCE((
  SELECT g.name <> 'role:everyone' FROM realms r
  JOIN user_groups g ON g.id = r.can_access_all_users_group_id
  WHERE r.id = ${realmId}), false)`;

/** Does this organization restrict what guests can access? */
export async function guestAccessRestricted(db: Db | Tx, realmId: number): Promise<boolean> {
  const rows = await db.$queryRaw<{ restricted: boolean }[]>(
    Prisma.sql`SELECT ${guestsRestricted(realmId)} AS restricted`,
  );
  return at(rows, 0).restricted;
}

/**
 * Of the given pairs of active users, those sharing a channel or direct-message conversation (as
 * `a:b` keys), not counting the subscriptions in `ignoring`: with the subscriptions just added
 * there, it answers what the pairs shared before.
 */
export async function pairsSharingConversation(
  db: Db | Tx,
  pairs: [number, number][],
  ignoring: { userId: number; recipientId: number }[] = [],
): Promise<Set<string>> {
  if (pairs.length === 0) return new Set();
  const rows = await db.$queryRaw<{ a: number; b: number }[]>(Prisma.sql`
    WITH ignored AS (
      SELECT * FROM unnest(${ignoring.map((i) => i.userId)}::int[],
        ${ignoring.map((i) => i.recipientId)}::int[]) AS i(user_id, recipient_id))
    SELECT p.a, p.b FROM unnest(${pairs.map((p) => p[0])}::int[], ${pairs.map((p) => p[1])}::int[])
      AS p(a, b)
    WHERE EXISTS (
      SELECT 1 FROM subscriptions sa
      JOIN recipients r ON r.id = sa.recipient_id
      JOIN subscriptions sb ON sb.recipient_id = sa.recipient_id AND sb.user_id = p.b AND sb.active
      WHERE sa.user_id = p.a AND sa.active
        AND r.type IN (${RecipientType.STREAM}, ${RecipientType.DIRECT_MESSAGE_GROUP})
        AND (sa.user_id, sa.recipient_id) NOT IN (SELECT user_id, recipient_id FROM ignored)
        AND (sb.user_id, sb.recipient_id) NOT IN (SELECT user_id, recipient_id FROM ignored))`);
  return new Set(rows.map((r) => `${r.a}:${r.b}`));
}

/**
 * The active users (bots included, like `realmUserAudience`) who can access `target`: the
 * audience of every `realm_user`, `presence` and `user_status` event about that user (Zulip's
 * `get_user_ids_who_can_access_user`). One query; when the organization does not restrict access
 * the subquery is never evaluated, so it costs what `realmUserAudience` does.
 */
export async function usersWhoCanAccess(
  db: Db | Tx,
  target: { id: number; realmId: number; isBot: boolean },
): Promise<number[]> {
  if (target.isBot) return realmUserAudience(db, target.realmId);
  const rows = await db.$queryRaw<{ id: number }[]>(Prisma.sql`
    SELECT u.id FROM users u
    WHERE u.realm_id = ${target.realmId} AND u.is_active
      AND (NOT ${guestsRestricted(target.realmId)} OR u.role <> ${Role.GUEST} OR u.id = ${target.id}
        OR EXISTS (
          SELECT 1 FROM subscriptions st
          JOIN recipients r ON r.id = st.recipient_id
          JOIN subscriptions su ON su.recipient_id = st.recipient_id AND su.user_id = u.id
          WHERE st.user_id = ${target.id} AND st.active AND su.active AND su.is_user_active
            AND (r.type = ${RecipientType.DIRECT_MESSAGE_GROUP}
              OR (r.type = ${RecipientType.STREAM} AND st.is_user_active))))
    ORDER BY u.id`);
  return rows.map((r) => r.id);
}

/**
 * The non-bot users `viewer` can access, deactivated ones included; null when the viewer can
 * access everyone (every non-guest, and guests where access is not restricted).
 */
export async function accessibleUserIds(
  db: Db | Tx,
  viewer: { id: number; realmId: number; role: number },
): Promise<Set<number> | null> {
  if (!accessDependsOnConversations(viewer) || !(await guestAccessRestricted(db, viewer.realmId))) {
    return null;
  }
  const rows = await db.$queryRaw<{ id: number }[]>(Prisma.sql`
    SELECT DISTINCT su.user_id AS id FROM subscriptions sv
    JOIN recipients r ON r.id = sv.recipient_id
    JOIN subscriptions su ON su.recipient_id = sv.recipient_id AND su.active
    WHERE sv.user_id = ${viewer.id} AND sv.active
      AND (r.type = ${RecipientType.DIRECT_MESSAGE_GROUP}
        OR (r.type = ${RecipientType.STREAM} AND su.is_user_active))`);
  return new Set([viewer.id, ...rows.map((r) => r.id)]);
}

/*
 * The `Permission.User*` rules of the access entry point (access.ts), each answering which of
 * `ids` (users of the asker's organization) the asker may act on, and the error for the others.
 */

const realmUsers = (db: Db | Tx, actor: AccessUser, ids: number[], withSystemBots = false) =>
  db.user.findMany({
    where: {
      id: { in: ids },
      realmId: actor.realmId,
      ...(withSystemBots ? {} : { isSystemBot: false }),
    },
    select: { id: true, role: true },
  });

const verdictOf = (allowed: { id: number }[], refusal: () => ApiError): Verdict => ({
  allowed: new Set(allowed.map((u) => u.id)),
  refusal,
});

/** A user as `Permission.UserRead` reads them. */
export type ReadableUserRow = Pick<User, 'id' | 'isBot' | 'realmId'>;

/**
 * `Permission.UserRead`: bots, oneself, and whom `accessibleUserIds` lets the viewer see. A
 * listing hands over the users it has read (`users`), which are then not read again.
 */
export async function readableUsers(
  db: Db | Tx,
  { viewer, ids, users }: { viewer: AccessUser; ids: number[]; users?: readonly ReadableUserRow[] },
): Promise<Verdict> {
  const accessible = await accessibleUserIds(db, viewer);
  const rows =
    users ??
    (await db.user.findMany({
      where: { id: { in: ids }, realmId: viewer.realmId },
      select: { id: true, isBot: true, realmId: true },
    }));
  const asked = new Set(ids);
  const allowed = rows.filter(
    (u) =>
      u.realmId === viewer.realmId &&
      asked.has(u.id) &&
      (u.isBot || accessible === null || accessible.has(u.id)),
  );
  return verdictOf(allowed, () => insufficientPermission());
}

/** `Permission.UserAdminister`: administrators (and owners) edit and reactivate other users. */
export async function administrableUsers(
  db: Db | Tx,
  actor: AccessUser,
  ids: number[],
): Promise<Verdict> {
  if (!canAdministerUsers(actor)) return verdictOf([], () => insufficientPermission());
  return verdictOf(await realmUsers(db, actor, ids), () => badRequest('No such user'));
}

/**
 * `Permission.UserDeactivate`: users deactivate themselves, administrators deactivate others,
 * and only owners an owner.
 */
export async function deactivatableUsers(
  db: Db | Tx,
  actor: AccessUser,
  ids: number[],
): Promise<Verdict> {
  const refusals = new Map<number, ApiError | null>();
  for (const target of await realmUsers(db, actor, ids, true)) {
    if (actor.id !== target.id && !canAdministerUsers(actor)) {
      refusals.set(target.id, insufficientPermission());
    } else if (isRealmOwner(target) && !isRealmOwner(actor)) {
      refusals.set(target.id, insufficientPermission('Must be an organization owner'));
    } else refusals.set(target.id, null);
  }
  return {
    allowed: new Set(ids.filter((id) => refusals.get(id) === null)),
    refusal: (id) => refusals.get(id) ?? insufficientPermission(),
  };
}

/** `Permission.UserChangeRole`: administrators change roles, and only owners an owner's. */
export async function roleChangeableUsers(
  db: Db | Tx,
  actor: AccessUser,
  ids: number[],
): Promise<Verdict> {
  if (!canAdministerUsers(actor)) return verdictOf([], () => insufficientPermission());
  const targets = await realmUsers(db, actor, ids);
  return verdictOf(
    targets.filter((t) => !isRealmOwner(t) || isRealmOwner(actor)),
    () => badRequest('Must be an organization owner'),
  );
}

/**
 * `Permission.UserChangeEmail`: an owner holding can_change_user_emails changes others' emails
 * at once, without a confirmation.
 */
export async function emailChangeableUsers(
  db: Db | Tx,
  actor: AccessUser,
  ids: number[],
): Promise<Verdict> {
  const holder = await db.user.findUnique({
    where: { id: actor.id },
    select: { role: true, canChangeUserEmails: true },
  });
  const targets = holder && canChangeUserEmails(holder) ? await realmUsers(db, actor, ids) : [];
  return verdictOf(targets, () => insufficientPermission());
}

/** Organization settings (linkifiers, profile fields, realm settings) are for administrators. */
export function requireRealmAdmin(actor: Pick<User, 'role'>): void {
  if (!canAdministerUsers(actor)) {
    throw insufficientPermission('Must be an organization administrator');
  }
}

/** Zulip's `require_non_guest_user`: endpoints guests may not call at all. */
export function requireNonGuest(actor: Pick<User, 'role'>): void {
  if (isRealmGuest(actor)) throw badRequest('Not allowed for guest users');
}
