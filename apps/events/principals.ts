import type { IncomingMessage } from 'node:http';
import type { AppContext } from '../../libs/core/context';
import { identifyPoller, pollerRealm, type Poller } from '../../libs/http/auth';
import { PrincipalCache, pollerCacheOf, principalCacheOf } from '../../libs/http/principal-cache';

export interface Pollers {
  authenticate(ctx: AppContext, req: Pick<IncomingMessage, 'headers'>): Promise<Poller>;
}

const ownCaches = new WeakMap<AppContext, PrincipalCache<Poller>>();

/**
 * Who polls: the events process's poller cache (with its change feed), or in the one-process
 * server the API's principal cache; otherwise, as in a test that builds the events app alone, one
 * cache of the events tier's own that trusts a checked credential for its lifetime.
 */
export function eventsPrincipals(ctx: AppContext): Pollers {
  const attached = pollerCacheOf(ctx) ?? principalCacheOf(ctx);
  if (attached) return attached;
  let own = ownCaches.get(ctx);
  if (!own) {
    own = new PrincipalCache<Poller>({
      ttlSeconds: ctx.config.eventsAuthCacheSeconds,
      unfedTtlSeconds: ctx.config.eventsAuthCacheSeconds,
      lookup: identifyPoller,
      realmRow: pollerRealm,
    });
    ownCaches.set(ctx, own);
  }
  return own;
}
