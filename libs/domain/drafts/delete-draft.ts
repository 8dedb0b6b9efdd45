import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { checkSyncEnabled, lockOwnDraft } from './validate-drafts';
import { draftsEvent } from '../../protocol/events/drafts';
import { Permission } from '../permissions/access';

/** `DELETE /drafts/{draft_id}`. */
export async function deleteDraft(
  ctx: AppContext,
  user: User,
  realm: Realm,
  draftId: number,
): Promise<void> {
  checkSyncEnabled(user);
  await inTransaction(ctx, async (tx, events) => {
    await lockOwnDraft(tx, { user, draftId, permission: Permission.DraftDelete });
    await tx.draft.delete({ where: { id: draftId } });
    await events.emit(realm.id, draftsEvent({ op: 'remove', draft_id: draftId }), [user.id]);
  });
}
