import type { User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import type { EventSink } from '../../events/outbox';
import { OFFLINE_THRESHOLD_SECONDS } from './format-presence';
import { emitPresenceEvent, nextUpdateId } from './update-presence';

/** How much older than the offline threshold an invisible user's presence is made (clock skew). */
const INVISIBLE_MARGIN_SECONDS = 120;

/**
 * Zulip's presence update when `presence_enabled` changes, in the settings transaction, so
 * everyone sees the new state at once: turning it on reports the user active now; turning it off
 * replaces their presence with one old enough to read as offline (they appear to have left a few
 * minutes before going invisible). Either way a `presence` event goes out, even where the
 * organization has disabled presence updates, as Zulip forces it.
 */
export async function applyPresenceEnabled(
  tx: Tx,
  events: EventSink,
  user: User,
  enabled: boolean,
  now: Date,
): Promise<void> {
  const time = enabled
    ? now
    : new Date(now.getTime() - (OFFLINE_THRESHOLD_SECONDS + INVISIBLE_MARGIN_SECONDS) * 1000);
  const data = {
    lastConnectedTime: time,
    lastActiveTime: enabled ? time : null,
    lastUpdateId: await nextUpdateId(tx, user.realmId),
  };
  const row = await tx.userPresence.upsert({
    where: { userId: user.id },
    create: { userId: user.id, realmId: user.realmId, ...data },
    update: data,
  });
  await emitPresenceEvent(tx, events, user, row, now);
}
