import { lockRow } from '../../db/locks';
import type { User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { Permission, requireAccess } from '../permissions/access';
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
    await requireAccess(tx, {
      auth: { user: actor },
      permission: Permission.EmojiDeactivate,
      ids: [emoji.id],
      emoji: [emoji],
    });
    await tx.realmEmoji.update({ where: { id: emoji.id }, data: { deactivated: true } });
    await sendEmoji(tx, events, actor.realmId);
  });
}
