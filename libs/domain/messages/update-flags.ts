import { Prisma, type Realm, type User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { inTransaction, type EventSink } from '../../events/outbox';
import { writePushRemovals } from '../notifications/enqueue-notifications';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { Permission, requireAccess } from '../permissions/access';
import { EDITABLE_FLAGS, Flag, NON_EDITABLE_FLAGS, type EditableFlag } from './flags';
import { displayTopic } from './topic-name';
import type { EventFields } from '../../protocol/formatter';
import type { UnreadMessageDetails } from '../../protocol/records';
import {
  updateMessageFlagsEvent,
  type UpdateMessageFlagsEvent,
} from '../../protocol/events/update-message-flags';

export type FlagOp = 'add' | 'remove';

export interface FlagsResult {
  messages: number[];
  ignored_because_not_subscribed_channels?: number[];
}

/** Zulip's checks, in Zulip's order and wording. */
export function validateFlagChange(flag: string, op: string): EditableFlag {
  if (!(EDITABLE_FLAGS as readonly string[]).includes(flag)) {
    if ((NON_EDITABLE_FLAGS as readonly string[]).includes(flag)) {
      throw badRequest(`Flag not editable: '${flag}'`);
    }
    throw badRequest(`Invalid flag: '${flag}'`);
  }
  if (op !== 'add' && op !== 'remove') throw badRequest(`Invalid message flag operation: '${op}'`);
  return flag as EditableFlag;
}

interface DetailRow {
  id: number;
  is_channel_message: boolean;
  subject: string;
  stream_id: number | null;
  flags: bigint;
  dm_user_ids: number[] | null;
}

/** One flag added to or removed from a user's copies of some messages. */
export interface FlagChange {
  user: User;
  realm: Pick<Realm, 'id'>;
  messageIds: number[];
  flag: EditableFlag;
  op: FlagOp;
}

/**
 * Changes one flag on the user's copies of `messageIds` inside a transaction. Messages read
 * from channel history get a historical UserMessage row first (Zulip's
 * create_historical_user_messages). Only messages whose flag actually changed are returned and
 * evented (FL 155). Marking unread skips channels the user is not subscribed to (FL 355).
 */
export async function applyFlagChange(
  tx: Tx,
  events: EventSink,
  { user, realm, messageIds, flag, op }: FlagChange,
): Promise<FlagsResult> {
  const bit = Flag[flag];
  const ids = [...new Set(messageIds)];
  const existing = await tx.userMessage.findMany({
    where: { userId: user.id, messageId: { in: ids } },
    select: { messageId: true },
  });
  const have = new Set(existing.map((e) => e.messageId));
  const historical = ids.filter((id) => !have.has(id));
  await requireAccess(tx, { auth: { user }, permission: Permission.MessageRead, ids: historical });
  if (historical.length && op === 'add') {
    const base = Flag.historical | (flag === 'read' ? 0 : Flag.read);
    await tx.$executeRaw(Prisma.sql`
      INSERT INTO user_messages (user_id, message_id, flags)
      SELECT ${user.id}, id, ${base} FROM unnest(${historical}::int[]) AS id
      ON CONFLICT (user_id, message_id) DO NOTHING`);
  }

  let target = ids;
  let ignored: number[] | undefined;
  if (flag === 'read' && op === 'remove') {
    const rows = await tx.$queryRaw<{ id: number; stream_id: number }[]>(Prisma.sql`
      SELECT m.id, s.id AS stream_id FROM messages m JOIN streams s ON s.recipient_id = m.recipient_id
      WHERE m.id = ANY(${ids}::int[]) AND NOT EXISTS (
        SELECT 1 FROM subscriptions sub
        WHERE sub.recipient_id = m.recipient_id AND sub.user_id = ${user.id} AND sub.active)`);
    const skip = new Set(rows.map((r) => r.id));
    target = ids.filter((id) => !skip.has(id));
    ignored = [...new Set(rows.map((r) => r.stream_id))].sort((a, b) => a - b);
  }

  const changed = await tx.$queryRaw<{ message_id: number }[]>(
    op === 'add'
      ? Prisma.sql`UPDATE user_messages SET flags = flags | ${bit}
          WHERE user_id = ${user.id} AND message_id = ANY(${target}::int[]) AND (flags & ${bit}) = 0
          RETURNING message_id`
      : Prisma.sql`UPDATE user_messages SET flags = flags & ~${bit}::bigint
          WHERE user_id = ${user.id} AND message_id = ANY(${target}::int[]) AND (flags & ${bit}) <> 0
          RETURNING message_id`,
  );
  const changedIds = changed.map((c) => c.message_id).sort((a, b) => a - b);
  if (flag === 'read' && op === 'add' && changedIds.length) {
    await clearPushedNotifications(tx, events, user.id, changedIds);
  }
  if (changedIds.length) {
    const event: EventFields<UpdateMessageFlagsEvent> = {
      op,
      operation: op,
      flag,
      messages: changedIds,
      all: false,
    };
    if (flag === 'read' && op === 'remove') {
      event.message_details = await messageDetails(tx, user, realm, changedIds);
    }
    await events.emit(realm.id, updateMessageFlagsEvent(event), [user.id]);
  }
  const result: FlagsResult = { messages: changedIds };
  if (ignored) result.ignored_because_not_subscribed_channels = ignored;
  return result;
}

/**
 * Messages read whose push notification is on the user's devices lose Zulip's
 * active_mobile_push_notification flag, and a job (written here) clears the notifications.
 */
async function clearPushedNotifications(
  tx: Tx,
  events: EventSink,
  userId: number,
  messageIds: number[],
): Promise<void> {
  const pushed = Flag.active_mobile_push_notification;
  const cleared = await tx.$queryRaw<{ message_id: number }[]>(Prisma.sql`
    UPDATE user_messages SET flags = flags & ~${pushed}::bigint
    WHERE user_id = ${userId} AND message_id = ANY(${messageIds}::int[]) AND (flags & ${pushed}) <> 0
    RETURNING message_id`);
  if (cleared.length === 0) return;
  const ids = cleared.map((c) => c.message_id).sort((a, b) => a - b);
  await writePushRemovals(tx, [{ userId, messageIds: ids }]);
}

/** `message_details` of a mark-as-unread event: what clients need to rebuild unread counts. */
async function messageDetails(
  tx: Tx,
  user: Pick<User, 'id'>,
  realm: Pick<Realm, 'id'>,
  ids: number[],
): Promise<Record<string, UnreadMessageDetails>> {
  const rows = await tx.$queryRaw<DetailRow[]>(Prisma.sql`
    SELECT m.id, m.is_channel_message, m.subject, s.id AS stream_id, um.flags,
      (SELECT array_agg(sub.user_id ORDER BY sub.user_id) FROM subscriptions sub
        JOIN recipients r ON r.id = sub.recipient_id
        WHERE sub.recipient_id = m.recipient_id AND r.type = 3 AND sub.user_id <> ${user.id}) AS dm_user_ids
    FROM messages m JOIN user_messages um ON um.message_id = m.id AND um.user_id = ${user.id}
    LEFT JOIN streams s ON s.recipient_id = m.recipient_id
    WHERE m.id = ANY(${ids}::int[])`);
  const details: Record<string, UnreadMessageDetails> = {};
  for (const row of rows) {
    const mentioned =
      (Number(row.flags) &
        (Flag.mentioned | Flag.stream_wildcard_mentioned | Flag.topic_wildcard_mentioned)) !==
      0;
    const entry: UnreadMessageDetails = row.is_channel_message
      ? {
          type: 'stream',
          stream_id: row.stream_id ?? 0,
          topic: displayTopic(row.subject, realm, true),
          unmuted_stream_msg: true,
        }
      : { type: 'private', user_ids: row.dm_user_ids ?? [] };
    if (mentioned) entry.mentioned = true;
    details[String(row.id)] = entry;
  }
  return details;
}

/** POST /messages/flags. */
export async function updateMessageFlags(
  ctx: AppContext,
  input: { user: User; realm: Realm; messages: number[]; op: string; flag: string },
): Promise<FlagsResult> {
  const flag = validateFlagChange(input.flag, input.op);
  return inTransaction(ctx, (tx, events) =>
    applyFlagChange(tx, events, {
      user: input.user,
      realm: input.realm,
      messageIds: input.messages,
      flag,
      op: input.op as FlagOp,
    }),
  );
}
