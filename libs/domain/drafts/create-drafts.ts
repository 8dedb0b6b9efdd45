import type { Draft, Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { type DraftInput, checkSyncEnabled, draftRows } from './validate-drafts';
import { formatDraft } from './format-draft';
import { draftsEvent } from '../../protocol/events/drafts';

/** `POST /drafts`: creates drafts, returning their IDs; a `drafts` add event tells other clients. */
export async function createDrafts(
  ctx: AppContext,
  user: User,
  realm: Realm,
  drafts: DraftInput[],
): Promise<number[]> {
  checkSyncEnabled(user);
  const rows = await draftRows(ctx, user, realm, drafts);
  return inTransaction(ctx, async (tx, events) => {
    const created: Draft[] = [];
    for (const row of rows)
      created.push(await tx.draft.create({ data: { userId: user.id, ...row } }));
    if (created.length) {
      await events.emit(realm.id, draftsEvent({ op: 'add', drafts: created.map(formatDraft) }), [
        user.id,
      ]);
    }
    return created.map((d) => d.id);
  });
}
