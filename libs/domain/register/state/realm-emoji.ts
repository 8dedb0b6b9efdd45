import { listRealmEmoji } from '../../emoji/list-realm-emoji';
import type { StateProvider } from './types';

export const realmEmojiState: StateProvider = {
  eventTypes: ['realm_emoji'],
  async fetch({ ctx, realm }) {
    return { realm_emoji: await listRealmEmoji(ctx.db, realm.id) };
  },
};
