import { listBots } from '../../bots/list-bots';
import { wants, type StateProvider } from './types';

/** `realm_bot`: the bots the user administers, deactivated ones included, as Zulip lists them. */
export const realmBotsState: StateProvider = {
  eventTypes: ['realm_bot'],
  async fetch({ ctx, user }) {
    const bots = await listBots(ctx, user, { includeInactive: true });
    return { realm_bots: bots.map(({ username: _u, owner: _o, ...bot }) => bot) };
  },
};

/**
 * `realm_embedded_bots` and `realm_incoming_webhook_bots`: the embedded bots and incoming-webhook
 * integrations the server offers. This server runs neither, so both lists are empty.
 */
export const serviceCatalogueState: StateProvider = {
  eventTypes: ['realm_embedded_bots', 'realm_incoming_webhook_bots'],
  async fetch({ params }) {
    const out: Record<string, unknown> = {};
    for (const name of ['realm_embedded_bots', 'realm_incoming_webhook_bots']) {
      if (wants(params, name)) out[name] = [];
    }
    return out;
  },
};
