import { lockRow } from '../../db/locks';
import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import Joi from 'joi';
import { badRequest } from '../../core/errors';
import { P, type Infer } from '../../core/schema';
import type { AppContext } from '../../core/context';
import { subscriptionEvent } from '../../protocol/events/subscription';
import type { SubscriptionProperty } from '../../protocol/records';
import { checkAccess, Permission } from '../permissions/access';

/** One item of `subscription_data`. */
export const propertyChange = P.object({
  stream_id: P.int().required(),
  property: P.string(Joi.string()).required(),
  value: P.alternatives(P.bool(Joi.boolean().strict()), P.string(Joi.string())).required(),
});
export type PropertyChange = Infer<typeof propertyChange>;

const BOOLEAN_COLUMNS = {
  pin_to_top: 'pinToTop',
  desktop_notifications: 'desktopNotifications',
  audible_notifications: 'audibleNotifications',
  push_notifications: 'pushNotifications',
  email_notifications: 'emailNotifications',
  wildcard_mentions_notify: 'wildcardMentionsNotify',
} as const;

const COLOR = /^#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})$/;

/**
 * `POST /users/me/subscriptions/properties` (spec 4.6). `is_muted` and its legacy inverse
 * `in_home_view` each emit two update events (FL 139), one per property name.
 */
export async function updateSubscriptionProperties(
  ctx: AppContext,
  input: { actor: User; realm: Realm; changes: PropertyChange[] },
): Promise<void> {
  const { actor, realm } = input;
  await inTransaction(ctx, async (tx, events) => {
    // A user's subscriptions change one request at a time (under the user's row, as in subscribe).
    await lockRow(tx, 'users', actor.id);
    const subscribed = await checkAccess(tx, {
      auth: { user: actor },
      permission: Permission.SubscriptionUpdate,
      ids: input.changes.map((c) => c.stream_id),
    });
    for (const change of input.changes) {
      const streamId = change.stream_id;
      if (!subscribed.has(streamId)) throw badRequest(`Not subscribed to channel ID ${streamId}`);
      const sub = await tx.subscription.findFirstOrThrow({
        where: { userId: actor.id, active: true, recipient: { stream: { id: streamId } } },
        select: { id: true },
      });
      const emit = (property: SubscriptionProperty, value: boolean | string) =>
        events.emit(
          realm.id,
          subscriptionEvent({ op: 'update', property, value, stream_id: streamId }),
          [actor.id],
        );
      const { property, value } = change;
      if (property === 'color') {
        if (typeof value !== 'string' || !COLOR.test(value)) {
          throw badRequest(
            'subscription_data[0]["value"] is not a valid hex color code'.replace(
              '[0]',
              `[${input.changes.indexOf(change)}]`,
            ),
          );
        }
        await tx.subscription.update({ where: { id: sub.id }, data: { color: value } });
        await emit('color', value);
      } else if (property === 'is_muted' || property === 'in_home_view') {
        if (typeof value !== 'boolean') throw badRequest(`${property} is not a boolean`);
        const muted = property === 'is_muted' ? value : !value;
        await tx.subscription.update({ where: { id: sub.id }, data: { isMuted: muted } });
        await emit('in_home_view', !muted);
        await emit('is_muted', muted);
      } else if (property in BOOLEAN_COLUMNS) {
        if (typeof value !== 'boolean') throw badRequest(`${property} is not a boolean`);
        const name = property as keyof typeof BOOLEAN_COLUMNS;
        const column = BOOLEAN_COLUMNS[name];
        await tx.subscription.update({ where: { id: sub.id }, data: { [column]: value } });
        await emit(name, value);
      } else {
        throw badRequest(`Unknown subscription property: ${property}`);
      }
    }
  });
}
