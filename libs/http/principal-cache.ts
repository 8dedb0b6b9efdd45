import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Realm } from '../../generated/prisma/client';
import type { AppContext } from '../core/context';
import {
  PrincipalChangeFeed,
  type PrincipalChange,
  type PrincipalChangeHandlers,
} from '../db/principal-changes';
import { realmForHost } from '../domain/realms/resolve-host';
import { authenticate, stillAuthorized, type Principal } from './auth';

const MAX_HOSTS = 1_000;

interface Entry {
  principal: Promise<Principal>;
  expires: number;
  /** From this instant a use starts a check in the background, so the entry never lapses. */
  refreshAt: number;
  refreshing: boolean;
  /** Set once the lookup succeeded and the entry is indexed under them. */
  ids?: { user: number; realm: number };
}

export interface PrincipalCacheOptions {
  ttlSeconds: number;
  maxEntries?: number;
  /**
   * Serve entries only while a change feed is attached and listening. The API tier needs this:
   * a deactivated user or a replaced key must stop acting at once. The event-queue tier may trust
   * an entry for its lifetime, since a poll only reads the user's own queue.
   */
  requireFeed?: boolean;
}

/**
 * A process's memory of who a credential belongs to. Clients re-poll after every event they
 * receive and make many API calls in a row; without this each of them costs a PostgreSQL lookup
 * of the user and its organization. Only successful lookups are kept, for `ttlSeconds`, and
 * concurrent requests with one credential share one lookup.
 *
 * With a change feed attached (`PrincipalChangeFeed`: PostgreSQL notifies when a `users` or
 * `realms` row changes), an entry is dropped as soon as its rows change, and everything is
 * dropped when the feed restarts, since it may have missed changes meanwhile.
 *
 * A credential in use is also checked again in the background some time in the second half of
 * its lifetime (a random instant, so thousands of clients that started together do not all expire
 * together), with one narrow query: active clients never wait for PostgreSQL, and a failed check
 * drops the entry, so the next request looks the credential up and is refused.
 */
export class PrincipalCache implements PrincipalChangeHandlers {
  private readonly entries = new Map<string, Entry>();
  /** Cache keys by user and by organization, for dropping them when those rows change. */
  private readonly keysByUser = new Map<number, Set<string>>();
  private readonly keysByRealm = new Map<number, Set<string>>();
  /**
   * One organization object per organization, the most recently read: thousands of cached
   * credentials of one organization then hold one copy of its (large) row, not one each.
   */
  private readonly realms = new Map<number, Realm>();
  /** Which organization each Host header names (a bounded set: the header is the client's). */
  private readonly realmsByHost = new Map<string, Promise<Realm | null>>();
  /** Counts changes, so a lookup that raced with one is used once but not kept. */
  private changes = 0;
  private feed: PrincipalChangeFeed | null = null;
  private readonly ttlSeconds: number;
  private readonly maxEntries: number;
  private readonly requireFeed: boolean;

  constructor(options: PrincipalCacheOptions) {
    this.ttlSeconds = options.ttlSeconds;
    this.maxEntries = options.maxEntries ?? 100_000;
    this.requireFeed = options.requireFeed ?? false;
  }

  /** Starts listening for changes on `databaseUrl`; the returned function stops it. */
  async listen(databaseUrl: string, onError: (err: Error) => void): Promise<() => Promise<void>> {
    const feed = new PrincipalChangeFeed(databaseUrl, this, onError);
    this.feed = feed;
    await feed.start();
    return () => feed.close();
  }

  /** Whether the change feed is receiving notifications. */
  get listening(): boolean {
    return this.feed?.listening === true;
  }

  change({ kind, id }: PrincipalChange): void {
    this.changes++;
    const keys = (kind === 'user' ? this.keysByUser : this.keysByRealm).get(id);
    if (kind === 'realm') {
      this.realms.delete(id);
      this.realmsByHost.clear();
    }
    for (const key of [...(keys ?? [])]) this.drop(key);
  }

  reset(): void {
    this.changes++;
    this.entries.clear();
    this.keysByUser.clear();
    this.keysByRealm.clear();
    this.realms.clear();
    this.realmsByHost.clear();
  }

  /**
   * Resolves once every change committed so far has reached this cache: a request that changed
   * rows waits for it before answering, so the client's next request never sees the old rows.
   */
  settle(): Promise<void> {
    return this.feed?.barrier() ?? Promise.resolve();
  }

  /** The organization a Host header names, remembered while the change feed runs. */
  realmForHost(ctx: AppContext, host: string | undefined): Promise<Realm | null> {
    const lookup = () => realmForHost(ctx.db, host, ctx.config.externalHost);
    if (this.feed?.listening !== true) return lookup();
    const key = host ?? '';
    const hit = this.realmsByHost.get(key);
    if (hit) return hit;
    const changesBefore = this.changes;
    const realm = lookup();
    if (this.realmsByHost.size >= MAX_HOSTS) this.realmsByHost.clear();
    this.realmsByHost.set(key, realm);
    const forget = () => {
      if (this.realmsByHost.get(key) === realm) this.realmsByHost.delete(key);
    };
    realm.then(() => this.changes !== changesBefore && forget(), forget);
    return realm;
  }

  authenticate(ctx: AppContext, req: Pick<IncomingMessage, 'headers'>): Promise<Principal> {
    const usable = this.ttlSeconds > 0 && (!this.requireFeed || this.feed?.listening === true);
    if (!usable) return authenticate(ctx, req);
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
  private check(
    ctx: AppContext,
    req: Pick<IncomingMessage, 'headers'>,
    key: string,
  ): Promise<Principal> {
    const changesBefore = this.changes;
    const principal = authenticate(ctx, req).then(({ user, realm }) => {
      const known = this.realms.get(realm.id);
      const shared = known && sameRow(known, realm) ? known : realm;
      if (shared === realm) this.realms.set(realm.id, realm);
      return { user, realm: shared };
    });
    this.drop(key);
    // Map iteration is insertion order: the first key is the least recently stored.
    if (this.entries.size >= this.maxEntries) this.drop(this.entries.keys().next().value as string);
    const entry = this.entry(principal);
    this.entries.set(key, entry);
    principal.then(
      ({ user, realm }) => {
        if (this.entries.get(key) !== entry) return;
        if (this.changes !== changesBefore) return this.drop(key);
        entry.ids = { user: user.id, realm: realm.id };
        index(this.keysByUser, user.id, key);
        index(this.keysByRealm, realm.id, key);
      },
      () => {
        if (this.entries.get(key) === entry) this.drop(key);
      },
    );
    return principal;
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    if (!entry.ids) return;
    unindex(this.keysByUser, entry.ids.user, key);
    unindex(this.keysByRealm, entry.ids.realm, key);
  }

  /** Confirms a cached credential in the background: renewed if it still holds, else dropped. */
  private recheck(ctx: AppContext, key: string, stale: Entry): void {
    stale.principal
      .then((principal) => stillAuthorized(ctx, principal))
      .then(
        (ok) => {
          if (this.entries.get(key) !== stale) return;
          if (!ok) return this.drop(key);
          const renewed = this.entry(stale.principal);
          stale.expires = renewed.expires;
          stale.refreshAt = renewed.refreshAt;
          stale.refreshing = false;
        },
        () => {
          if (this.entries.get(key) === stale) this.drop(key);
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

function index(keys: Map<number, Set<string>>, id: number, key: string): void {
  const set = keys.get(id);
  if (set) set.add(key);
  else keys.set(id, new Set([key]));
}

function unindex(keys: Map<number, Set<string>>, id: number, key: string): void {
  const set = keys.get(id);
  if (!set) return;
  set.delete(key);
  if (set.size === 0) keys.delete(id);
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

const attached = new WeakMap<AppContext, PrincipalCache>();

/**
 * Gives the process one principal cache, which every authenticated route then uses, and starts
 * its change feed; the returned function stops the feed.
 */
export function attachPrincipalCache(
  ctx: AppContext,
  options: PrincipalCacheOptions,
): Promise<() => Promise<void>> {
  const cache = new PrincipalCache(options);
  attached.set(ctx, cache);
  return cache.listen(ctx.config.databaseUrl, (err) =>
    ctx.log.warn('auth', 'principal change feed lost; cached credentials dropped', {
      error: err.message,
    }),
  );
}

export const principalCacheOf = (ctx: AppContext): PrincipalCache | undefined => attached.get(ctx);

/** The organization a request's host names: from the process's cache when it has one. */
export function realmOfRequest(
  ctx: AppContext,
  req: Pick<IncomingMessage, 'headers'>,
): Promise<Realm | null> {
  return (
    attached.get(ctx)?.realmForHost(ctx, req.headers.host) ??
    realmForHost(ctx.db, req.headers.host, ctx.config.externalHost)
  );
}

/** Who is calling: from the process's principal cache when it has one. */
export function identifyCaller(
  ctx: AppContext,
  req: Pick<IncomingMessage, 'headers'>,
): Promise<Principal> {
  return attached.get(ctx)?.authenticate(ctx, req) ?? authenticate(ctx, req);
}
