import type { AppContext } from '../../core/context';
import { lockRow } from '../../db/locks';
import { inTransaction } from '../../events/outbox';
import { realmEvent } from '../../protocol/events/realm';
import { realmUserAudience } from '../permissions/users';
import type { NotifyResponse } from './bouncer-client';

/** What the bouncer says of an organization in each push/notify answer. */
export type BouncerRealmAnswer = NonNullable<NotifyResponse['realm']>;

/**
 * Zulip's handling of the bouncer's `realm` answer (send_notifications_to_bouncer): the
 * organization's push_notifications_enabled becomes the bouncer's `can_push` and its end time
 * the bouncer's `expected_end_timestamp`. A change reaches every user of the organization as a
 * `realm` update_dict event, so the apps can say that mobile notifications stopped (or came
 * back); nothing is written while the answer stays the same.
 */
export async function recordPushAvailability(
  ctx: AppContext,
  realmId: number,
  answer: BouncerRealmAnswer,
): Promise<boolean> {
  const enabled = answer.can_push === true;
  const endTime =
    typeof answer.expected_end_timestamp === 'number'
      ? new Date(answer.expected_end_timestamp * 1000)
      : null;
  const same = (realm: {
    pushNotificationsEnabled: boolean;
    pushNotificationsEnabledEndTime: Date | null;
  }) =>
    realm.pushNotificationsEnabled === enabled &&
    (realm.pushNotificationsEnabledEndTime?.getTime() ?? null) === (endTime?.getTime() ?? null);
  const select = { pushNotificationsEnabled: true, pushNotificationsEnabledEndTime: true };
  const known = await ctx.db.realm.findUnique({ where: { id: realmId }, select });
  if (!known || same(known)) return false;
  return inTransaction(ctx, async (tx, events) => {
    await lockRow(tx, 'realms', realmId);
    const current = await tx.realm.findUniqueOrThrow({ where: { id: realmId }, select });
    if (same(current)) return false;
    await tx.realm.update({
      where: { id: realmId },
      data: { pushNotificationsEnabled: enabled, pushNotificationsEnabledEndTime: endTime },
    });
    await events.emit(
      realmId,
      realmEvent({
        op: 'update_dict',
        property: 'default',
        data: {
          push_notifications_enabled: enabled,
          push_notifications_enabled_end_timestamp:
            endTime === null ? null : Math.floor(endTime.getTime() / 1000),
        },
      }),
      await realmUserAudience(tx, realmId),
    );
    return true;
  });
}
