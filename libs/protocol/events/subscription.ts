import type { ApiSubscription, SubscriptionProperty } from '../records';
import { plainFormatter, type EventFields } from '../formatter';

/** `subscription` events. */
export type SubscriptionEvent =
  | { type: 'subscription'; op: 'add'; subscriptions: ApiSubscription[] }
  | { type: 'subscription'; op: 'remove'; subscriptions: { name: string; stream_id: number }[] }
  | {
      type: 'subscription';
      op: 'update';
      stream_id: number;
      property: SubscriptionProperty;
      value: boolean | string | null;
    }
  | {
      type: 'subscription';
      op: 'peer_add' | 'peer_remove';
      stream_ids: number[];
      user_ids: number[];
    };

export const subscriptionEvent = (fields: EventFields<SubscriptionEvent>): SubscriptionEvent => ({
  ...fields,
  type: 'subscription',
});

export const subscriptionFormatter = plainFormatter<SubscriptionEvent>();
