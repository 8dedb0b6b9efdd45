import { lockRow } from '../../db/locks';
import { Prisma, type User, type UserPresence } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { inTransaction, type EventSink } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { usersWhoCanAccess } from '../permissions/users';
import { legacyClientPresence, OFFLINE_THRESHOLD_SECONDS } from './format-presence';
import { presenceEvent } from '../../protocol/events/presence';
import { recordInvisibleActivity } from './invisible-activity';
import { at } from '../../core/at';

export type PresenceStatus = 'active' | 'idle';

/** Updates closer together than this are not stored (they would change nothing a client shows). */
const MIN_UPDATE_INTERVAL_MS = 60_000;

export async function nextUpdateId(tx: Tx, realmId: number): Promise<bigint> {
  const rows = await tx.$queryRaw<{ last_update_id: bigint }[]>(Prisma.sql`
    INSERT INTO presence_sequences (realm_id, last_update_id) VALUES (${realmId}, 1)
    ON CONFLICT (realm_id) DO UPDATE SET last_update_id = presence_sequences.last_update_id + 1
    RETURNING last_update_id`);
  return at(rows, 0).last_update_id;
}

/**
 * The `presence` event other users' clients apply at once (legacy per-client format, as Zulip
 * sends it), to the users who can access the user (Zulip with
 * CAN_ACCESS_ALL_USERS_GROUP_LIMITS_PRESENCE).
 */
export async function emitPresenceEvent(
  tx: Tx,
  events: EventSink,
  user: User,
  row: Pick<UserPresence, 'lastActiveTime' | 'lastConnectedTime'>,
  now: Date,
): Promise<void> {
  await events.emit(
    user.realmId,
    presenceEvent({
      user_id: user.id,
      email: user.email,
      server_timestamp: now.getTime() / 1000,
      presence: {
        website: legacyClientPresence({
          userId: user.id,
          email: user.email,
          dateJoined: user.dateJoined,
          lastActiveTime: row.lastActiveTime,
          lastConnectedTime: row.lastConnectedTime,
        }),
      },
    }),
    await usersWhoCanAccess(tx, user),
  );
}

/**
 * Records that the user's client is connected (and, for `active`, in use). Coming back online
 * after being offline sends a `presence` event to those who can access the user. The presence of
 * invisible users (presence_enabled false) stays as it was when they went invisible; their
 * activity is kept apart (invisible-activity.ts), for the notification rules alone.
 */
export async function updatePresence(
  ctx: AppContext,
  input: { user: User; status: PresenceStatus; now: Date },
): Promise<void> {
  const { user, status, now } = input;
  if (!user.presenceEnabled) {
    if (status === 'active') await recordInvisibleActivity(ctx, user.id, now);
    return;
  }
  await inTransaction(ctx, async (tx, events) => {
    // One user's presence changes one request at a time: two first reports do not both insert.
    await lockRow(tx, 'users', user.id);
    const realm = await tx.realm.findUniqueOrThrow({
      where: { id: user.realmId },
      select: { presenceDisabled: true },
    });
    const existing = await tx.userPresence.findUnique({ where: { userId: user.id } });
    const data: { lastConnectedTime?: Date; lastActiveTime?: Date } = {};
    const stale = (time: Date | null | undefined) =>
      !time || now.getTime() - time.getTime() >= MIN_UPDATE_INTERVAL_MS;
    if (stale(existing?.lastConnectedTime)) data.lastConnectedTime = now;
    if (status === 'active' && stale(existing?.lastActiveTime)) data.lastActiveTime = now;
    if (existing && Object.keys(data).length === 0) return;

    const lastUpdateId = await nextUpdateId(tx, user.realmId);
    const row = existing
      ? await tx.userPresence.update({
          where: { userId: user.id },
          data: { ...data, lastUpdateId },
        })
      : await tx.userPresence.create({
          data: {
            userId: user.id,
            realmId: user.realmId,
            lastConnectedTime: now,
            lastActiveTime: status === 'active' ? now : null,
            lastUpdateId,
          },
        });
    const wasOffline =
      !existing?.lastConnectedTime ||
      now.getTime() - existing.lastConnectedTime.getTime() > OFFLINE_THRESHOLD_SECONDS * 1000;
    if (!wasOffline || realm.presenceDisabled) return;
    await emitPresenceEvent(tx, events, user, row, now);
  });
}
