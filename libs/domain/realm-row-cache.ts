import type { Pool } from 'pg';
import type { Stream } from '../../generated/prisma/client';
import type { AppContext } from '../core/context';
import type { PrincipalChange, PrincipalChangeHandlers } from '../db/principal-changes';
import { sqlPool } from '../db/sql';

/** The kinds of an organization's rows the change feed reports per organization. */
type RealmRowKind = Extract<PrincipalChange['kind'], 'markup' | 'channel'>;

const MAX_REALMS = 1_000;
/** Keys per organization: a channel is kept under each spelling of its name a client sends. */
const MAX_KEYS = 10_000;
/**
 * How long a read is kept even while the feed says nothing: the bound on a change the feed missed
 * without noticing (a LISTEN through a transaction-mode pooler hears nothing).
 */
const MAX_AGE_MS = 60_000;

/**
 * A process's memory of one kind of an organization's rows, which sends read every time and
 * which rarely change: its custom emoji and linkifiers (`markup`), its channels (`channel`).
 * Fed by the principal change feed (PostgreSQL's triggers notify `<kind>:<realm id>`), it serves
 * only while that feed listens, drops an organization's rows of its kind when told of a change
 * and everything when the feed restarts, and reads again after a minute whatever it heard. A
 * read that raced with a change is used once and not kept, nor one that `keep` refuses.
 */
export class RealmRowCache<T> implements PrincipalChangeHandlers {
  private readonly byRealm = new Map<number, Map<string, { rows: Promise<T>; readAt: number }>>();
  private changes = 0;

  constructor(
    private readonly kind: RealmRowKind,
    private readonly listening: () => boolean,
  ) {}

  /** The rows `key` names in organization `realmId`, from memory or from `read`. */
  get(
    realmId: number,
    {
      key,
      read,
      keep = () => true,
    }: { key: string; read: () => Promise<T>; keep?: (rows: T) => boolean },
  ): Promise<T> {
    if (!this.listening()) return read();
    const now = Date.now();
    let realm = this.byRealm.get(realmId);
    const known = realm?.get(key);
    if (known && now - known.readAt < MAX_AGE_MS) return known.rows;
    if (!realm) {
      if (this.byRealm.size >= MAX_REALMS) this.byRealm.clear();
      this.byRealm.set(realmId, (realm = new Map()));
    }
    if (realm.size >= MAX_KEYS) realm.clear();
    const changesBefore = this.changes;
    const reading = read();
    const entry = { rows: reading, readAt: now };
    realm.set(key, entry);
    const forget = () => {
      if (this.byRealm.get(realmId)?.get(key) === entry) this.byRealm.get(realmId)?.delete(key);
    };
    reading.then((rows) => (this.changes !== changesBefore || !keep(rows)) && forget(), forget);
    return reading;
  }

  change({ kind, id }: PrincipalChange): void {
    if (kind !== this.kind) return;
    this.changes++;
    this.byRealm.delete(id);
  }

  reset(): void {
    this.changes++;
    this.byRealm.clear();
  }
}

/** An organization's custom emoji and linkifiers, as the Markdown renderer needs them. */
export interface RealmMarkup {
  emoji: { id: number; name: string; fileName: string | null; deactivated: boolean }[];
  linkifiers: { id: number; pattern: string; urlTemplate: string }[];
}

/** The caches of a process whose principal change feed runs. */
export interface RealmRowCaches {
  markup: RealmRowCache<RealmMarkup>;
  /** Channels by `id:<id>` or `name:<lower-case name>`; null where none is. */
  channels: RealmRowCache<Stream | null>;
}

/** Reads outside any transaction: with plain pg, and from the process's memory when it has one. */
export interface PlainReads {
  pool: Pool;
  caches?: RealmRowCaches;
}

const attached = new WeakMap<AppContext, RealmRowCaches>();

/** Gives the process its row caches, serving while `listening` says its feed listens. */
export function attachRealmRowCaches(ctx: AppContext, listening: () => boolean): RealmRowCaches {
  const caches: RealmRowCaches = {
    markup: new RealmRowCache('markup', listening),
    channels: new RealmRowCache('channel', listening),
  };
  attached.set(ctx, caches);
  return caches;
}

export const realmRowCachesOf = (ctx: AppContext): RealmRowCaches | undefined => attached.get(ctx);

/** This process's reads outside any transaction: plain pg, and its memory of the rows. */
export const plainReadsOf = (ctx: AppContext): PlainReads => ({
  pool: sqlPool(ctx),
  caches: attached.get(ctx),
});
