import { listScheduledMessages } from '../../scheduled-messages/list-scheduled-messages';
import type { StateProvider } from './types';

/** `scheduled_messages`: the user's undelivered scheduled messages, soonest first. */
export const scheduledMessagesState: StateProvider = {
  eventTypes: ['scheduled_messages'],
  async fetch({ ctx, user }) {
    return { scheduled_messages: await listScheduledMessages(ctx, user) };
  },
};
