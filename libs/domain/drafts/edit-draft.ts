import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { type DraftInput, checkSyncEnabled, draftRows, lockOwnDraft } from './validate-drafts';
import { formatDraft } from './format-draft';
import { Permission } from '../permissions/access';
import { draftsEvent } from '../../protocol/events/drafts';
import { at } from '../../core/at';

/** `PATCH /drafts/{draft_id}`: replaces a draft. */
export async function editDraft(
  ctx: AppContext,
  {
    user,
    realm,
    draftId,
    draft: input,
  }: { user: User; realm: Realm; draftId: number; draft: DraftInput },
): Promise<void> {
  checkSyncEnabled(user);
  const row = at(await draftRows(ctx, user, realm, [input]), 0);
  await inTransaction(ctx, async (tx, events) => {
    await lockOwnDraft(tx, { user, draftId, permission: Permission.DraftUpdate });
    const updated = await tx.draft.update({ where: { id: draftId }, data: row });
    await events.emit(realm.id, draftsEvent({ op: 'update', draft: formatDraft(updated) }), [
      user.id,
    ]);
  });
}
