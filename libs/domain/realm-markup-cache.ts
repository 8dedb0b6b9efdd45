import type { AppContext } from '../core/context';
import type { PrincipalChange, PrincipalChangeHandlers } from '../db/principal-changes';

/** An organization's custom emoji and linkifiers, as the Markdown renderer needs them. */
export interface RealmMarkup {
  emoji: { id: number; name: string; fileName: string | null; deactivated: boolean }[];
  linkifiers: { id: number; pattern: string; urlTemplate: string }[];
}

const MAX_REALMS = 1_000;

/**
 * A process's memory of each organization's emoji and linkifiers. Every message renders with
 * them and they rarely change: read for each send they were one statement in four of the send
 * path. Fed by the principal change feed (PostgreSQL's triggers on `realm_emoji` and
 * `realm_filters` notify `markup:<realm id>`), it serves only while that feed listens, drops an
 * organization's entry when told of a change and everything when the feed restarts. A read that
 * raced with a change is used once and not kept.
 */
export class RealmMarkupCache implements PrincipalChangeHandlers {
  private readonly byRealm = new Map<number, Promise<RealmMarkup>>();
  private changes = 0;

  constructor(private readonly listening: () => boolean) {}

  /** Organization `realmId`'s markup, from memory or from `read`. */
  get(realmId: number, read: () => Promise<RealmMarkup>): Promise<RealmMarkup> {
    if (!this.listening()) return read();
    const known = this.byRealm.get(realmId);
    if (known) return known;
    const changesBefore = this.changes;
    const reading = read();
    if (this.byRealm.size >= MAX_REALMS) this.byRealm.clear();
    this.byRealm.set(realmId, reading);
    const forget = () => {
      if (this.byRealm.get(realmId) === reading) this.byRealm.delete(realmId);
    };
    reading.then(() => this.changes !== changesBefore && forget(), forget);
    return reading;
  }

  change({ kind, id }: PrincipalChange): void {
    if (kind !== 'markup') return;
    this.changes++;
    this.byRealm.delete(id);
  }

  reset(): void {
    this.changes++;
    this.byRealm.clear();
  }
}

const attached = new WeakMap<AppContext, RealmMarkupCache>();

/** Gives the process its markup cache, serving while `listening` says its feed listens. */
export function attachRealmMarkupCache(
  ctx: AppContext,
  listening: () => boolean,
): RealmMarkupCache {
  const cache = new RealmMarkupCache(listening);
  attached.set(ctx, cache);
  return cache;
}

export const realmMarkupCacheOf = (ctx: AppContext): RealmMarkupCache | undefined =>
  attached.get(ctx);
