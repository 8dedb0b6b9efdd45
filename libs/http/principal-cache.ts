import { createHash } from 'node:crypto';
import type { Request } from 'express';
import type { Realm } from '../../generated/prisma/client';
import type { AppContext } from '../core/context';
import { authenticate, stillAuthorized, type Principal } from './auth';

interface Entry {
  principal: Promise<Principal>;
  expires: number;
  /** From this instant a use starts a check in the background, so the entry never lapses. */
  refreshAt: number;
  refreshing: boolean;
}

/**
 * The event-queue tier's memory of who a credential belongs to. Clients re-poll after every event
 * they receive, so one message to a large channel is followed by a poll from each recipient;
 * without this each of those polls costs two PostgreSQL queries. Only successful lookups are
 * kept, for `ttlSeconds`: a deactivated account or a replaced API key keeps polling (and only
 * polling) for at most that long. Concurrent polls with one credential share one lookup.
 *
 * A credential in use is checked again in the background some time in the second half of its
 * lifetime (a random instant, so thousands of clients that started together do not all expire
 * together), with one narrow query: polls of active clients never wait for PostgreSQL, and a
 * failed check drops the entry, so the next poll looks the credential up and is refused.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, Entry>();
  /**
   * One organization object per organization, the most recently read: thousands of cached
   * credentials of one organization then hold one copy of its (large) row, not one each.
   */
  private readonly realms = new Map<number, Realm>();

  constructor(
    private readonly ttlSeconds: number,
    private readonly maxEntries = 100_000,
  ) {}

  authenticate(ctx: AppContext, req: Request): Promise<Principal> {
    if (this.ttlSeconds <= 0) return authenticate(ctx, req);
    const key = createHash('sha256')
      .update(`${req.headers.host ?? ''}\n${req.headers.authorization ?? ''}`)
      .digest('base64');
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.expires > now) {
      if (now >= hit.refreshAt && !hit.refreshing) {
        hit.refreshing = true;
        this.recheck(ctx, key, hit);
      }
      return hit.principal;
    }
    return this.check(ctx, req, key);
  }

  /** Looks the credential up and stores the entry at once (a failure removes it). */
  private check(ctx: AppContext, req: Request, key: string): Promise<Principal> {
    const principal = authenticate(ctx, req).then(({ user, realm }) => {
      const known = this.realms.get(realm.id);
      if (known && sameRow(known, realm)) return { user, realm: known };
      this.realms.set(realm.id, realm);
      return { user, realm };
    });
    this.entries.delete(key);
    // Map iteration is insertion order: the first key is the least recently stored.
    if (this.entries.size >= this.maxEntries) {
      this.entries.delete(this.entries.keys().next().value as string);
    }
    this.entries.set(key, this.entry(principal));
    principal.catch(() => {
      if (this.entries.get(key)?.principal === principal) this.entries.delete(key);
    });
    return principal;
  }

  /** Confirms a cached credential in the background: renewed if it still holds, else dropped. */
  private recheck(ctx: AppContext, key: string, stale: Entry): void {
    stale.principal
      .then((principal) => stillAuthorized(ctx, principal))
      .then(
        (ok) => {
          if (this.entries.get(key) !== stale) return;
          if (ok) this.entries.set(key, this.entry(stale.principal));
          else this.entries.delete(key);
        },
        () => {
          if (this.entries.get(key) === stale) this.entries.delete(key);
        },
      );
  }

  private entry(principal: Promise<Principal>): Entry {
    const now = Date.now();
    const ttl = this.ttlSeconds * 1000;
    return {
      principal,
      expires: now + ttl,
      refreshAt: now + ttl * (0.5 + 0.4 * Math.random()),
      refreshing: false,
    };
  }
}

/** Whether two rows read from the database hold the same values (dates compared by time). */
function sameRow(a: object, b: object): boolean {
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  return Object.keys(left).every((key) => {
    const x = left[key];
    const y = right[key];
    if (x instanceof Date && y instanceof Date) return x.getTime() === y.getTime();
    return x === y || (typeof x === 'object' && JSON.stringify(x) === JSON.stringify(y));
  });
}
