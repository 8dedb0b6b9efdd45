import type { Pool } from 'pg';
import type { Db, Tx } from '../db/client';
import type { Config } from '../core/config';
import type { MarkdownContext } from '../markdown';
import { camoUrl } from './external-content/camo-url';
import { realmUrl } from './realms/realm-url';
import { at } from '../core/at';
import type { PlainReads, RealmMarkup } from './realm-row-cache';

// One statement for both lists: every send renders, and a query is a round trip plus Prisma's
// own work for each.
const REALM_MARKUP_SQL = `
  SELECT
    COALESCE((
      SELECT json_agg(json_build_object(
        'id', id, 'name', name, 'fileName', file_name, 'deactivated', deactivated) ORDER BY id)
      FROM realm_emoji WHERE realm_id = $1), '[]') AS emoji,
    COALESCE((
      SELECT json_agg(json_build_object(
        'id', id, 'pattern', pattern, 'urlTemplate', url_template) ORDER BY "order", id)
      FROM realm_filters WHERE realm_id = $1), '[]') AS linkifiers`;

async function realmMarkup(
  db: Db | Tx,
  config: Config,
  realmId: number,
  pool: Pool | undefined,
): Promise<RealmMarkup> {
  // A SELECT without FROM: always one row.
  if (!pool) return at(await db.$queryRawUnsafe<RealmMarkup[]>(REALM_MARKUP_SQL, realmId), 0);
  const { rows } = await pool.query<RealmMarkup>({
    name: config.databasePreparedStatements ? 'realm-markup' : undefined,
    text: REALM_MARKUP_SQL,
    values: [realmId],
  });
  return at(rows, 0);
}

/**
 * Lookups the Markdown renderer needs, answered from one organization's rows. `plain`: read the
 * organization's emoji and linkifiers with plain pg (outside any transaction), which costs a
 * third of the CPU of the same statement through Prisma, or from the markup cache; the send path
 * does.
 */
export async function markdownContextFor(
  db: Db | Tx,
  config: Config,
  realm: {
    id: number;
    stringId: string;
    defaultCodeBlockLanguage?: string;
    inlineUrlEmbedPreview?: boolean;
  },
  plain?: PlainReads,
): Promise<MarkdownContext> {
  const read = () => realmMarkup(db, config, realm.id, plain?.pool);
  const { emoji, linkifiers } = await (plain?.caches?.markup.get(realm.id, { key: '', read }) ??
    read());
  const base = realmUrl(realm.stringId, config);
  const camo = config.camo;
  return {
    realmUrl: base,
    defaultCodeBlockLanguage: realm.defaultCodeBlockLanguage,
    camoUrl: camo ? (url) => camoUrl(camo, url) : undefined,
    urlEmbedPreview: config.urlPreview.enabled && realm.inlineUrlEmbedPreview === true,
    async lookupUsersByName(names) {
      if (names.length === 0) return [];
      const users = await db.user.findMany({
        where: { realmId: realm.id, fullName: { in: names, mode: 'insensitive' } },
        select: { id: true, fullName: true, email: true, isActive: true },
      });
      return users;
    },
    async lookupUsersById(ids) {
      if (ids.length === 0) return [];
      return db.user.findMany({
        where: { realmId: realm.id, id: { in: ids } },
        select: { id: true, fullName: true, email: true, isActive: true },
      });
    },
    async lookupGroupsByName(names) {
      if (names.length === 0) return [];
      const groups = await db.userGroup.findMany({
        where: {
          realmId: realm.id,
          named: true,
          deactivated: false,
          name: { in: names, mode: 'insensitive' },
        },
        select: { id: true, name: true },
      });
      return groups.map((g) => ({ id: g.id, name: g.name ?? '' }));
    },
    async lookupStreamsByName(names) {
      if (names.length === 0) return [];
      return db.stream.findMany({
        where: { realmId: realm.id, name: { in: names, mode: 'insensitive' } },
        select: { id: true, name: true },
      });
    },
    realmEmoji: emoji.map((e) => ({
      id: String(e.id),
      name: e.name,
      sourceUrl: `/user_avatars/${realm.id}/emoji/images/${e.fileName ?? ''}`,
      deactivated: e.deactivated,
    })),
    linkifiers: linkifiers.map((l) => ({
      id: l.id,
      pattern: l.pattern,
      urlTemplate: l.urlTemplate,
    })),
  };
}
