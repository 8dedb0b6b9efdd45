import type { AppContext } from '../../libs/core/context';
import { PrincipalCache, principalCacheOf } from '../../libs/http/principal-cache';

const ownCaches = new WeakMap<AppContext, PrincipalCache>();

/**
 * Who polls: the process's principal cache (with its change feed) when it has one; otherwise, as
 * in a test that builds the events app alone, one cache of the events tier's own that trusts a
 * checked credential for its lifetime.
 */
export function eventsPrincipals(ctx: AppContext): PrincipalCache {
  const attached = principalCacheOf(ctx);
  if (attached) return attached;
  let own = ownCaches.get(ctx);
  if (!own) {
    own = new PrincipalCache({ ttlSeconds: ctx.config.eventsAuthCacheSeconds });
    ownCaches.set(ctx, own);
  }
  return own;
}
