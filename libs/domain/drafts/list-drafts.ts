import type { User } from '../../../generated/prisma/client';
import type { Db } from '../../db/client';
import { type ApiDraft, formatDraft } from './format-draft';

/** `GET /drafts`: the caller's drafts, oldest edit first. */
export async function listDrafts(db: Db, user: User): Promise<ApiDraft[]> {
  const drafts = await db.draft.findMany({
    where: { userId: user.id },
    orderBy: [{ lastEditTime: 'asc' }, { id: 'asc' }],
  });
  return drafts.map(formatDraft);
}
