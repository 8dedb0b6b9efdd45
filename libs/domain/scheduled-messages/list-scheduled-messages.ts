import type { User } from '../../../generated/prisma/client';
import type { AppContext } from '../context';
import { formatScheduledMessages, type ApiScheduledMessage } from './format-scheduled-message';

/** GET /scheduled_messages: the caller's undelivered scheduled messages, soonest first. */
export async function listScheduledMessages(
  ctx: AppContext,
  user: Pick<User, 'id'>,
): Promise<ApiScheduledMessage[]> {
  const rows = await ctx.db.scheduledMessage.findMany({
    where: { senderId: user.id, delivered: false, deliveryType: 1 },
    orderBy: [{ scheduledTimestamp: 'asc' }, { id: 'asc' }],
    include: { recipient: true },
  });
  return formatScheduledMessages(ctx.db, rows);
}
