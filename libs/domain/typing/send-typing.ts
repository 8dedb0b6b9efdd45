import type { Realm, User } from '../../../generated/prisma/client';
import { publishEphemeral } from '../../events/domain-stream';
import { badRequest, missingArgument } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { P, type InferShape } from '../../core/schema';
import { Permission, requireAccess } from '../permissions/access';
import { typingEvent } from '../../protocol/events/typing';

/** `POST /typing`'s parameters. */
export const typingParams = {
  op: P.oneOf('start', 'stop').required(),
  type: P.oneOf('direct', 'stream', 'channel').default('direct'),
  to: P.array(P.int()),
  stream_id: P.int(),
  topic: P.string(),
};

export type TypingInput = { sender: User; realm: Realm } & InferShape<typeof typingParams>;

const person = (u: { id: number; email: string }) => ({ user_id: u.id, email: u.email });

/**
 * `POST /typing`: a `typing` event to the conversation's participants (direct) or the channel's
 * subscribers, limited to active users with `receives_typing_notifications`. Nothing is stored:
 * the event goes straight to the events tier's streams (no outbox row).
 */
export async function sendTyping(ctx: AppContext, input: TypingInput): Promise<void> {
  const { sender, realm } = input;
  if (input.type === 'direct') {
    if (input.to === undefined) throw missingArgument('to');
    if (input.to.length === 0) throw badRequest("Empty 'to' list");
    const ids = [...new Set([...input.to, sender.id])];
    const users = await ctx.db.user.findMany({
      where: { id: { in: ids }, realmId: realm.id },
      select: { id: true, email: true, isActive: true, receivesTypingNotifications: true },
      orderBy: { id: 'asc' },
    });
    const missing = input.to.find((id) => !users.some((u) => u.id === id));
    if (missing !== undefined) throw badRequest(`Invalid user ID ${missing}`);
    const notify = users
      .filter((u) => u.isActive && u.receivesTypingNotifications)
      .map((u) => u.id);
    await publishEphemeral(
      ctx,
      realm.id,
      typingEvent({
        op: input.op,
        message_type: 'direct',
        sender: person(sender),
        recipients: users.map(person),
      }),
      notify,
    );
    return;
  }
  if (input.stream_id === undefined) throw missingArgument('stream_id');
  const topic = input.topic;
  if (topic === undefined) throw badRequest('Missing topic');
  const streamId = input.stream_id;
  await requireAccess(ctx.db, {
    auth: { user: sender },
    permission: Permission.ChannelTyping,
    ids: [streamId],
  });
  const subscribers = await ctx.db.subscription.findMany({
    where: { recipient: { stream: { id: streamId } }, active: true },
    select: {
      userId: true,
      user: { select: { isActive: true, receivesTypingNotifications: true } },
    },
  });
  const notify = subscribers
    .filter((s) => s.user.isActive && s.user.receivesTypingNotifications)
    .map((s) => s.userId);
  await publishEphemeral(
    ctx,
    realm.id,
    typingEvent({
      op: input.op,
      message_type: 'stream',
      sender: person(sender),
      stream_id: streamId,
      topic,
    }),
    notify,
  );
}
