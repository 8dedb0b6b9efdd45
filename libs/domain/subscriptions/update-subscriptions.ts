import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import {
  checkColors,
  prepareSubscribe,
  subscribeWithin,
  type RequestedSubscription,
  type SubscribeResult,
} from './subscribe';
import { unsubscribeWithin, type UnsubscribeResult } from './unsubscribe';

export interface UpdateSubscriptionsInput {
  actor: User;
  realm: Realm;
  add: RequestedSubscription[];
  /** Channel names to leave. */
  delete: string[];
}

export type UpdateSubscriptionsResult = SubscribeResult & UnsubscribeResult;

/**
 * `PATCH /users/me/subscriptions` (Zulip's update_subscriptions_backend): subscribes the caller to
 * `add` as `POST` would with its defaults (creating missing channels), then unsubscribes them from
 * `delete` as `DELETE` would, in one transaction, so a failure in either leaves nothing changed and
 * sends no event. The response merges both answers.
 */
export async function updateSubscriptions(
  ctx: AppContext,
  input: UpdateSubscriptionsInput,
): Promise<UpdateSubscriptionsResult> {
  const { actor, realm } = input;
  checkColors(input.add, 'add');
  if (input.add.length === 0 && input.delete.length === 0) {
    throw badRequest('Nothing to do. Specify at least one of "add" or "delete".');
  }
  // Zulip runs the add part even when `add` is empty, so guests are refused here as by POST.
  const prepared = await prepareSubscribe(ctx, {
    actor,
    realm,
    subscriptions: input.add,
    authorizationErrorsFatal: true,
    announce: false,
    inviteOnly: false,
    isWebPublic: false,
    isDefaultStream: false,
    groupSettings: {},
  });
  return inTransaction(ctx, async (tx, events) => {
    const added = await subscribeWithin(ctx, tx, events, prepared);
    const removed = await unsubscribeWithin(tx, events, { actor, realm, names: input.delete });
    return { ...added, ...removed };
  });
}
