import { lockRow } from '../../db/locks';
import type { User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { canDeactivateEmoji } from '../permissions/emoji';
import { sendEmoji } from './list-realm-emoji';

/** `DELETE /realm/emoji/{emoji_name}`: deactivates (administrators, or the emoji's author). */
export async function deactivateRealmEmoji(
  ctx: AppContext,
  input: { actor: User; name: string },
): Promise<void> {
  const { actor, name } = input;
  await inTransaction(ctx, async (tx, events) => {
    // The organization's emoji change one request at a time (under its row).
    await lockRow(tx, 'realms', actor.realmId);
    const emoji = await tx.realmEmoji.findFirst({
      where: { realmId: actor.realmId, name, deactivated: false },
    });
    if (!emoji) throw badRequest(`Emoji '${name}' does not exist`);
    if (!canDeactivateEmoji(actor, emoji)) {
      throw badRequest('Must be an organization administrator or emoji author');
    }
    await tx.realmEmoji.update({ where: { id: emoji.id }, data: { deactivated: true } });
    await sendEmoji(tx, events, actor.realmId);
  });
}
