import { Prisma, type Realm, type User } from '../../../generated/prisma/client';
import type { Db } from '../../db/client';
import { matchColumns, narrowSource } from './get-messages';
import { compileNarrow, parseNarrow, type RawNarrow } from './narrow';

/** GET /messages/matches_narrow: which of the given messages match, with highlighting. */
export async function matchesNarrow(
  db: Db,
  input: { user: User; realm: Realm; messageIds: number[]; narrow: RawNarrow },
): Promise<Record<string, { match_content: string; match_subject: string }>> {
  const narrow = await compileNarrow(db, input.user, input.realm, parseNarrow(input.narrow));
  if (input.messageIds.length === 0) return {};
  const highlighted = narrow.search.length > 0;
  const rows = await db.$queryRaw<
    {
      id: number;
      match_content: string;
      match_subject: string;
      rendered_content: string;
      subject: string;
    }[]
  >(
    Prisma.sql`SELECT m.id, m.rendered_content, m.subject ${matchColumns(narrow.search)}
      ${narrowSource(input.user, narrow)} AND m.id = ANY(${input.messageIds}::int[])`,
  );
  const escape = (s: string) =>
    s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const result: Record<string, { match_content: string; match_subject: string }> = {};
  for (const row of rows) {
    result[String(row.id)] = highlighted
      ? { match_content: row.match_content, match_subject: row.match_subject }
      : { match_content: row.rendered_content, match_subject: escape(row.subject) };
  }
  return result;
}
