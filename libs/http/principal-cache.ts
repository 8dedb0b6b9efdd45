import { hash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Realm } from '../../generated/prisma/client';
import type { AppContext } from '../core/context';
import {
  PrincipalChangeFeed,
  type PrincipalChange,
  type PrincipalChangeHandlers,
} from '../db/principal-changes';
import { realmForHost } from '../domain/realms/resolve-host';
import { attachRealmRowCaches } from '../domain/realm-row-cache';
import { sessionCredentialKey } from './session';
import {
  authenticate,
  identifyPoller,
  pollerRealm,
  principalRealm,
  stillAuthorized,
  type Poller,
  type Principal,
} from './auth';
import { logFailure } from '../stores/failures';

const MAX_HOSTS = 1_000;

/** What a credential is read from: a request's headers, and its connection when it has one. */
type CredentialCarrier = Pick<IncomingMessage, 'headers'> & { socket?: object | null };

interface Entry<P> {
  principal: Promise<P>;
  checkedAt: number;
  /**
   * The share of its lifetime after which a use starts a check in the background, so the entry
   * never lapses: a random one, so thousands of clients that started together never all expire
   * together.
   */
  refreshAfter: number;
  refreshing: boolean;
  /** Set once the lookup succeeded and the entry is indexed under them. */
  ids?: { user: number; realm: number };
}

export interface PrincipalCacheOptions<P extends Poller = Principal> {
  /** Who a request's credential belongs to (refusing it with Zulip's errors). */
  lookup: (ctx: AppContext, req: Pick<IncomingMessage, 'headers'>) => Promise<P>;
  /** An organization's row read again after it changed, as `lookup` gives it (null: gone). */
  realmRow: (ctx: AppContext, id: number) => Promise<P['realm'] | null>;
  /** How long an entry is trusted while the change feed listens (it drops changed rows at once). */
  ttlSeconds: number;
  /**
   * How long an entry is trusted while no change feed listens; 0 serves none then. The API tier
   * needs 0: a deactivated user or a replaced key must stop acting at once. The event-queue tier
   * may trust an entry a little while, since a poll only reads the user's own queue.
   */
  unfedTtlSeconds: number;
  maxEntries?: number;
}

/**
 * A process's memory of who a credential belongs to. Clients re-poll after every event they
 * receive and make many API calls in a row; without this each of them costs a PostgreSQL lookup
 * of the user and its organization. Only successful lookups are kept, and
 * concurrent requests with one credential share one lookup.
 *
 * With a change feed attached (`PrincipalChangeFeed`: PostgreSQL notifies when a `users` or
 * `realms` row changes), an entry is dropped as soon as its user's row changes, an organization's
 * change has its row read again once for all its entries, and everything is dropped when the feed
 * restarts, since it may have missed changes meanwhile.
 *
 * A credential in use is also checked again in the background some time in the second half of
 * its lifetime, with one narrow query: active clients never wait for PostgreSQL, and a failed
 * check drops the entry, so the next request looks the credential up and is refused. While the
 * feed listens that lifetime is long (thousands of polling clients must not cost a query each
 * every few seconds); while it does not, it is short or nothing.
 */
export class PrincipalCache<P extends Poller = Principal> implements PrincipalChangeHandlers {
  private readonly entries = new Map<string, Entry<P>>();
  /** Cache keys by user and by organization, for dropping them when those rows change. */
  private readonly keysByUser = new Map<number, Set<string>>();
  private readonly keysByRealm = new Map<number, Set<string>>();
  /**
   * One organization object per organization, the most recently read: thousands of cached
   * credentials of one organization then hold one copy of its (large) row, not one each.
   */
  private readonly realms = new Map<number, P['realm']>();
  /** Which organization each Host header names (a bounded set: the header is the client's). */
  private readonly realmsByHost = new Map<string, Promise<Realm | null>>();
  /**
   * Organizations whose row changed since their credentials were stored, each with the one read
   * of its new row once a request needs it. The credentials stay: an administrator's change to a
   * setting must not send every member's next poll to PostgreSQL at once (under load thousands of
   * lookups, which the overload guard refuses for seconds).
   */
  private readonly staleRealms = new Map<number, Promise<void> | undefined>();
  /** Counts changes, so a lookup that raced with one is used once but not kept. */
  private changes = 0;
  /**
   * Each connection's last credential and its key: a client's polls come one after another on
   * one keep-alive connection with the same credential, which is then hashed once, not per poll.
   */
  private readonly keyByConnection = new WeakMap<object, { credential: string; key: string }>();
  private feed: PrincipalChangeFeed | null = null;
  private readonly ttlMs: number;
  private readonly unfedTtlMs: number;
  private readonly maxEntries: number;
  private readonly lookup: PrincipalCacheOptions<P>['lookup'];
  private readonly realmRow: PrincipalCacheOptions<P>['realmRow'];

  constructor(options: PrincipalCacheOptions<P>) {
    this.lookup = options.lookup;
    this.realmRow = options.realmRow;
    this.ttlMs = options.ttlSeconds * 1000;
    this.unfedTtlMs = options.unfedTtlSeconds * 1000;
    this.maxEntries = options.maxEntries ?? 100_000;
  }

  /** How long an entry is trusted now: it depends on whether the feed listens. */
  private lifetimeMs(): number {
    return this.feed?.listening === true ? this.ttlMs : this.unfedTtlMs;
  }

  /**
   * Starts listening for changes on `databaseUrl`, telling `others` of them too; the returned
   * function stops it.
   */
  async listen(
    databaseUrl: string,
    onError: (err: Error) => void,
    others: PrincipalChangeHandlers[] = [],
  ): Promise<() => Promise<void>> {
    const handlers: PrincipalChangeHandlers[] = [this, ...others];
    const feed = new PrincipalChangeFeed(
      databaseUrl,
      {
        change: (change) => handlers.forEach((h) => h.change(change)),
        reset: () => handlers.forEach((h) => h.reset()),
      },
      onError,
    );
    this.feed = feed;
    await feed.start();
    return () => feed.close();
  }

  /** Whether the change feed is receiving notifications. */
  get listening(): boolean {
    return this.feed?.listening === true;
  }

  change({ kind, id }: PrincipalChange): void {
    if (kind !== 'user' && kind !== 'realm') return;
    this.changes++;
    if (kind === 'user') return this.dropAll(this.keysByUser.get(id));
    this.realms.delete(id);
    this.realmsByHost.clear();
    if (this.keysByRealm.has(id)) this.staleRealms.set(id, undefined);
  }

  reset(): void {
    this.changes++;
    this.staleRealms.clear();
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

  authenticate(ctx: AppContext, req: CredentialCarrier): Promise<P> {
    const lifetime = this.lifetimeMs();
    if (lifetime <= 0) return this.lookup(ctx, req);
    const key = this.keyOf(req);
    const hit = this.entries.get(key);
    const age = hit ? Date.now() - hit.checkedAt : Infinity;
    if (hit && age < lifetime) {
      if (hit.ids && this.staleRealms.has(hit.ids.realm)) {
        return this.refreshRealm(ctx, hit.ids.realm).then(() => this.authenticate(ctx, req));
      }
      if (age >= lifetime * hit.refreshAfter && !hit.refreshing) {
        hit.refreshing = true;
        this.recheck(ctx, key, hit);
      }
      return hit.principal;
    }
    return this.check(ctx, req, key);
  }

  /**
   * The entry key of a request's credential: its hash, so the entries hold no raw credential (a
   * connection's memo holds its own, as its requests do).
   */
  private keyOf(req: CredentialCarrier): string {
    const { host = '', authorization } = req.headers;
    const credential = `${host}\n${authorization ?? sessionCredentialKey(req)}`;
    const connection = req.socket;
    const known = connection && this.keyByConnection.get(connection);
    if (known?.credential === credential) return known.key;
    const key = hash('sha256', credential, 'base64');
    if (connection) this.keyByConnection.set(connection, { credential, key });
    return key;
  }

  /** Looks the credential up and stores the entry at once (a failure removes it). */
  private check(ctx: AppContext, req: Pick<IncomingMessage, 'headers'>, key: string): Promise<P> {
    const changesBefore = this.changes;
    const principal = this.lookup(ctx, req).then((found) => {
      const known = this.realms.get(found.realm.id);
      const shared = known && sameRow(known, found.realm) ? known : found.realm;
      if (shared === found.realm) this.realms.set(found.realm.id, found.realm);
      return { ...found, realm: shared };
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

  /**
   * Reads a changed organization's row once for all its credentials: they get the new row, or
   * are dropped if it is gone or deactivated (their next lookup refuses them). A read that raced
   * with a further change is not used; the next request reads again.
   */
  private refreshRealm(ctx: AppContext, id: number): Promise<void> {
    const under = this.staleRealms.get(id);
    if (under) return under;
    const refresh: Promise<void> = this.realmRow(ctx, id).then(
      (realm) => {
        if (this.staleRealms.get(id) !== refresh) return;
        this.staleRealms.delete(id);
        if (!realm || realm.deactivated) return this.dropAll(this.keysByRealm.get(id));
        this.realms.set(id, realm);
        for (const key of this.keysByRealm.get(id) ?? []) {
          const entry = this.entries.get(key);
          if (entry) entry.principal = entry.principal.then((p) => ({ ...p, realm }));
        }
      },
      () => {
        if (this.staleRealms.get(id) !== refresh) return;
        this.staleRealms.delete(id);
        this.dropAll(this.keysByRealm.get(id));
      },
    );
    this.staleRealms.set(id, refresh);
    return refresh;
  }

  /** Drops these entries (a copy is walked: dropping changes the index set). */
  private dropAll(keys: Set<string> | undefined): void {
    for (const key of [...(keys ?? [])]) this.drop(key);
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
  private recheck(ctx: AppContext, key: string, stale: Entry<P>): void {
    stale.principal
      .then((principal) => stillAuthorized(ctx, principal))
      .then(
        (ok) => {
          if (this.entries.get(key) !== stale) return;
          if (!ok) return this.drop(key);
          stale.checkedAt = Date.now();
          stale.refreshing = false;
        },
        () => {
          if (this.entries.get(key) === stale) this.drop(key);
        },
      );
  }

  private entry(principal: Promise<P>): Entry<P> {
    return {
      principal,
      checkedAt: Date.now(),
      refreshAfter: 0.5 + 0.4 * Math.random(),
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
const pollers = new WeakMap<AppContext, PrincipalCache<Poller>>();

function listen<P extends Poller>(
  ctx: AppContext,
  cache: PrincipalCache<P>,
  others: PrincipalChangeHandlers[] = [],
) {
  return cache.listen(
    ctx.config.databaseListenUrl,
    (err) =>
      logFailure(
        ctx.log,
        'auth',
        'principal change feed lost; cached credentials dropped',
        err,
        'warn',
      ),
    others,
  );
}

type CacheLifetimes = Omit<PrincipalCacheOptions, 'lookup' | 'realmRow'>;

/**
 * Gives the process one principal cache, which every authenticated route then uses, and starts
 * its change feed; the returned function stops the feed.
 */
export function attachPrincipalCache(
  ctx: AppContext,
  options: CacheLifetimes,
): Promise<() => Promise<void>> {
  // A host that does not name the caller's organization (a server reached by its address) is
  // resolved from the cache's memory of hosts, not with two more queries per credential.
  const cache: PrincipalCache = new PrincipalCache({
    ...options,
    lookup: (c, req) => authenticate(c, req, (r) => cache.realmForHost(c, r.headers.host)),
    realmRow: principalRealm,
  });
  attached.set(ctx, cache);
  // Sends read the organization's channels, emoji and linkifiers: remembered while this feed runs.
  const { markup, channels } = attachRealmRowCaches(ctx, () => cache.listening);
  return listen(ctx, cache, [markup, channels]);
}

/**
 * The event-queue tier's cache of who polls (`identifyPoller`: no Prisma), with its change feed;
 * the routes that need whole rows (registering through `GET /events`) look the caller up apart.
 */
export function attachPollerCache(
  ctx: AppContext,
  options: CacheLifetimes,
): Promise<() => Promise<void>> {
  const cache: PrincipalCache<Poller> = new PrincipalCache<Poller>({
    ...options,
    lookup: (c, req) => identifyPoller(c, req, (r) => cache.realmForHost(c, r.headers.host)),
    realmRow: pollerRealm,
  });
  pollers.set(ctx, cache);
  return listen(ctx, cache);
}

export const principalCacheOf = (ctx: AppContext): PrincipalCache | undefined => attached.get(ctx);

export const pollerCacheOf = (ctx: AppContext): PrincipalCache<Poller> | undefined =>
  pollers.get(ctx);

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
