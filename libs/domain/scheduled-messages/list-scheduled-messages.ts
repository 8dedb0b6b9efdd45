import type { User } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import { formatScheduledMessages, type ApiScheduledMessage } from './format-scheduled-message';

/** GET /scheduled_messages: the caller's undelivered scheduled messages, soonest first. */
export async function listScheduledMessages(
  ctx: { db: Db | Tx },
  user: Pick<User, 'id'>,
): Promise<ApiScheduledMessage[]> {
  const rows = await ctx.db.scheduledMessage.findMany({
    where: { senderId: user.id, delivered: false, deliveryType: 1 },
    orderBy: [{ scheduledTimestamp: 'asc' }, { id: 'asc' }],
    include: { recipient: true },
  });
  return formatScheduledMessages(ctx.db, rows);
}
