import { createHash } from 'node:crypto';
import { Prisma, type Realm, type Stream, type User } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import { sqlRows } from '../../db/sql';
import { badRequest, streamDoesNotExistById, streamDoesNotExistByName } from '../../core/errors';
import { RecipientType } from '../recipients';
import { equalsIgnoringCase } from '../../db/text-match';
import type { PlainReads } from '../realm-row-cache';

type Reader = Db | Tx;

/** `to` of a channel message: an ID, a name, or a JSON list holding one of them. */
export type ChannelTarget = number | string | (number | string)[];
/** `to` of a direct message: user IDs or emails, as a JSON list or comma-separated text. */
export type DirectTarget = number | string | (number | string)[];

/** A `streams` row as Prisma's `Stream`: every scalar column, under its field's name. */
export const STREAM_COLUMNS = Prisma.raw(`
  id, realm_id AS "realmId", name, description, rendered_description AS "renderedDescription",
  date_created AS "dateCreated", creator_id AS "creatorId", invite_only AS "inviteOnly",
  is_web_public AS "isWebPublic",
  history_public_to_subscribers AS "historyPublicToSubscribers",
  message_retention_days AS "messageRetentionDays", is_archived AS "isArchived",
  recipient_id AS "recipientId", first_message_id AS "firstMessageId",
  is_recently_active AS "isRecentlyActive",
  can_add_subscribers_group_id AS "canAddSubscribersGroupId",
  can_administer_channel_group_id AS "canAdministerChannelGroupId",
  can_remove_subscribers_group_id AS "canRemoveSubscribersGroupId",
  can_send_message_group_id AS "canSendMessageGroupId",
  can_subscribe_group_id AS "canSubscribeGroupId"`);

/**
 * The channel a message names. `plain`: read it with plain pg (outside any transaction), without
 * Prisma's own work around the query, or from the process's memory of the organization's
 * channels; the send path does. A channel without messages yet is not remembered: its first
 * message changes it, and tells everyone who sees it (`first_message_id`), exactly once.
 */
export async function resolveChannel(
  db: Reader,
  realm: Pick<Realm, 'id'>,
  to: ChannelTarget,
  plain?: PlainReads,
): Promise<Stream> {
  let target = to;
  if (Array.isArray(target)) {
    const [only, ...others] = target;
    if (only === undefined || others.length) throw badRequest('Cannot send to multiple channels');
    target = only;
  }
  const name = typeof target === 'number' ? '' : target.trim();
  let stream: Stream | null;
  if (plain) {
    const { pool, caches } = plain;
    const byId = typeof target === 'number' ? target : null;
    const read = async () => {
      const [row = null] = await sqlRows<Stream>(
        pool,
        byId !== null
          ? Prisma.sql`SELECT ${STREAM_COLUMNS} FROM streams
                       WHERE id = ${byId} AND realm_id = ${realm.id}`
          : Prisma.sql`SELECT ${STREAM_COLUMNS} FROM streams
                       WHERE realm_id = ${realm.id} AND lower(name) = lower(${name})`,
        { prepared: true },
      );
      return row;
    };
    const key = byId !== null ? `id:${byId}` : `name:${name}`;
    stream = await (caches?.channels.get(realm.id, { key, read, keep: hasMessages }) ?? read());
  } else {
    stream = await db.stream.findFirst({
      where:
        typeof target === 'number'
          ? { id: target, realmId: realm.id }
          : { realmId: realm.id, name: equalsIgnoringCase(name) },
    });
  }
  if (stream) return stream;
  throw typeof target === 'number'
    ? streamDoesNotExistById(target)
    : streamDoesNotExistByName(name);
}

const hasMessages = (channel: Stream | null): boolean => channel?.firstMessageId != null;

export type DirectRecipientUser = Pick<
  User,
  'id' | 'email' | 'fullName' | 'isActive' | 'isMirrorDummy' | 'isBot' | 'recipientId' | 'realmId'
>;

const userSelect = {
  id: true,
  email: true,
  fullName: true,
  isActive: true,
  isMirrorDummy: true,
  isBot: true,
  recipientId: true,
  realmId: true,
} as const;

/** Resolves the users of a direct message; every one must exist in the realm and be active. */
export async function resolveDirectUsers(
  db: Reader,
  realm: Pick<Realm, 'id'>,
  to: DirectTarget,
): Promise<DirectRecipientUser[]> {
  let items: (number | string)[];
  if (Array.isArray(to)) items = to;
  else if (typeof to === 'number') items = [to];
  else
    items = to
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  if (items.length === 0) throw badRequest('Message must have recipients');
  const ids = items.filter((i): i is number => typeof i === 'number');
  const emails = items.filter((i): i is string => typeof i === 'string');
  if (ids.length && emails.length)
    throw badRequest('Recipient lists may contain emails or user IDs, but not both.');
  const users = ids.length
    ? await db.user.findMany({ where: { realmId: realm.id, id: { in: ids } }, select: userSelect })
    : await db.user.findMany({
        where: { realmId: realm.id, email: { in: emails.map((e) => e.toLowerCase()) } },
        select: userSelect,
      });
  if (ids.length) {
    const found = new Set(users.map((u) => u.id));
    const missing = ids.find((id) => !found.has(id));
    if (missing !== undefined) throw badRequest(`Invalid user ID ${missing}`);
  } else {
    const found = new Set(users.map((u) => u.email.toLowerCase()));
    const missing = emails.find((e) => !found.has(e.toLowerCase()));
    if (missing !== undefined) throw badRequest(`Invalid email '${missing}'`);
  }
  const inactive = users.find((u) => !u.isActive && !u.isMirrorDummy);
  if (inactive) throw badRequest(`'${inactive.email}' is no longer using Zulip.`);
  return users;
}

export const huddleHash = (userIds: number[]) =>
  createHash('sha1')
    .update([...new Set(userIds)].sort((a, b) => a - b).join(','))
    .digest('hex');

/**
 * The recipient of a direct-message conversation. A message to oneself uses the personal
 * recipient. Every other conversation, 1:1 pairs included, uses a DirectMessageGroup recipient,
 * so incoming and outgoing messages of one conversation share `recipient_id` (spec 2.8, FL 327).
 * The group's members are subscribed to its recipient, which is how `display_recipient` and
 * the `dm` narrow find them.
 */
export async function directRecipientId(
  tx: Tx,
  realmId: number,
  sender: DirectRecipientUser,
  others: DirectRecipientUser[],
): Promise<number> {
  const userIds = [...new Set([sender.id, ...others.map((u) => u.id)])];
  if (userIds.length === 1) {
    if (sender.recipientId === null) throw new Error(`user ${sender.id} has no personal recipient`);
    return sender.recipientId;
  }
  const hash = huddleHash(userIds);
  const existing = await tx.directMessageGroup.findUnique({ where: { huddleHash: hash } });
  if (existing?.recipientId) return existing.recipientId;
  // Concurrent first messages of one conversation race here; ON CONFLICT keeps one group.
  await tx.$executeRaw`
    INSERT INTO direct_message_groups (realm_id, huddle_hash, group_size)
    VALUES (${realmId}, ${hash}, ${userIds.length})
    ON CONFLICT (huddle_hash) DO NOTHING`;
  const group = await tx.directMessageGroup.findUniqueOrThrow({ where: { huddleHash: hash } });
  if (group.recipientId) return group.recipientId;
  const recipient = await tx.recipient.create({
    data: { type: RecipientType.DIRECT_MESSAGE_GROUP, typeId: group.id },
  });
  await tx.directMessageGroup.update({
    where: { id: group.id },
    data: { recipientId: recipient.id },
  });
  await tx.subscription.createMany({
    data: userIds.map((userId) => ({ userId, recipientId: recipient.id })),
    skipDuplicates: true,
  });
  return recipient.id;
}
