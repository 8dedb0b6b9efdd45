import { listPlaygrounds } from '../../playgrounds/list-playgrounds';
import type { StateProvider } from './types';

export const realmPlaygroundsState: StateProvider = {
  eventTypes: ['realm_playgrounds'],
  async fetch({ ctx, realm }) {
    return { realm_playgrounds: await listPlaygrounds(ctx.db, realm.id) };
  },
};
