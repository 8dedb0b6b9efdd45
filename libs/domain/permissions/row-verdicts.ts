import type { Invitation, RealmEmoji, Stream } from '../../../generated/prisma/client';
import { badRequest, insufficientPermission } from '../../core/errors';
import type { Db, Tx } from '../../db/client';
import type { AccessUser, Verdict } from './access';
import { canSeeUnsubscribed } from './channels';
import { canDeactivateEmoji } from './emoji';
import { managesAllInvites } from './invites';

/*
 * The entry point's answers (access.ts) that judge each object by its own row and the asker's
 * role, with no membership to look up. A listing has read the rows already (register reads every
 * channel of the organization), so a request may hand them over and the answer costs no query;
 * without them the rows are read once, by ID.
 */

/** A row of the asker's organization among `ids`? (Handed-over rows are trusted for no more.) */
function wanted<R extends { id: number; realmId: number }>(
  user: AccessUser,
  ids: number[],
  rows: readonly R[],
): R[] {
  const asked = new Set(ids);
  return rows.filter((row) => row.realmId === user.realmId && asked.has(row.id));
}

/** A channel as `Permission.ChannelListUnsubscribed` reads it. */
export type ChannelKindRow = Pick<Stream, 'id' | 'realmId' | 'inviteOnly' | 'isWebPublic'>;

/** The channels `ids` the user sees without a subscription (register's `never_subscribed`). */
export async function unsubscribedChannelVerdict(
  db: Db | Tx,
  {
    user,
    ids,
    channels,
  }: { user: AccessUser; ids: number[]; channels?: readonly ChannelKindRow[] },
): Promise<Verdict> {
  const rows =
    channels ??
    (await db.stream.findMany({
      where: { id: { in: ids }, realmId: user.realmId },
      select: { id: true, realmId: true, inviteOnly: true, isWebPublic: true },
    }));
  const seen = wanted(user, ids, rows).filter((channel) => canSeeUnsubscribed(user, channel));
  return {
    allowed: new Set(seen.map((channel) => channel.id)),
    refusal: () => badRequest('Invalid channel ID'),
  };
}

/** An invitation or reusable link as `Permission.InvitationManage` reads it. */
export type InviteRow = Pick<Invitation, 'id' | 'realmId' | 'referredById'>;

/**
 * The invitations (`table: 'invitation'`) or reusable links (`'multiuseInvite'`) among `ids` the
 * user manages: those they sent, and every one as an administrator (invites.ts).
 */
export async function inviteVerdict(
  db: Db | Tx,
  {
    user,
    ids,
    table,
    invites,
  }: {
    user: AccessUser;
    ids: number[];
    table: 'invitation' | 'multiuseInvite';
    invites?: readonly InviteRow[];
  },
): Promise<Verdict> {
  const query = {
    where: { id: { in: ids }, realmId: user.realmId },
    select: { id: true, realmId: true, referredById: true },
  };
  const rows =
    invites ??
    (table === 'invitation'
      ? await db.invitation.findMany(query)
      : await db.multiuseInvite.findMany(query));
  const managesAll = managesAllInvites(user);
  const managed = wanted(user, ids, rows).filter((i) => managesAll || i.referredById === user.id);
  return {
    allowed: new Set(managed.map((invite) => invite.id)),
    refusal: () => insufficientPermission('Must be an organization administrator'),
  };
}

/** A custom emoji as `Permission.EmojiDeactivate` reads it. */
export type EmojiRow = Pick<RealmEmoji, 'id' | 'realmId' | 'authorId'>;

/** The custom emoji among `ids` the user may remove: their own, or any as an administrator. */
export async function emojiVerdict(
  db: Db | Tx,
  { user, ids, emoji }: { user: AccessUser; ids: number[]; emoji?: readonly EmojiRow[] },
): Promise<Verdict> {
  const rows =
    emoji ??
    (await db.realmEmoji.findMany({
      where: { id: { in: ids }, realmId: user.realmId },
      select: { id: true, realmId: true, authorId: true },
    }));
  const removable = wanted(user, ids, rows).filter((row) => canDeactivateEmoji(user, row));
  return {
    allowed: new Set(removable.map((row) => row.id)),
    refusal: () => badRequest('Must be an organization administrator or emoji author'),
  };
}
