import type { Realm, Stream, User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import type { EventSink } from '../../events/outbox';
import { findNotificationBot } from '../bots/notification-bot';
import type { AppContext } from '../../core/context';
import { prepareMessage, writeMessage } from '../messages/send-message';

/**
 * Zulip's direct message to a user someone else subscribed (FL 370 wording, a plain mention of
 * whoever did it); channel names sorted as Zulip does.
 */
export function subscribedYouText(actor: Pick<User, 'id' | 'fullName'>, names: string[]): string {
  const who = `@**${actor.fullName}|${actor.id}**`;
  const sorted = [...names].sort();
  if (sorted.length === 1) return `${who} subscribed you to the channel #**${sorted[0]}**.`;
  return (
    `${who} subscribed you to the following channels:\n\n` +
    sorted.map((name) => `* #**${name}**\n`).join('')
  );
}

/**
 * Zulip's send_messages_for_new_subscribers, direct-message part: each human the actor just
 * subscribed (never the actor) hears from the notification bot which existing channels they were
 * added to; channels created by the same request are left out. Runs in the subscribing
 * transaction; returns the message IDs.
 */
export async function sendSubscribedYouMessages(
  ctx: AppContext,
  tx: Tx,
  events: EventSink,
  input: {
    realm: Realm;
    actor: User;
    targets: User[];
    /** Newly subscribed channel names by user ID, as in the response's `subscribed`. */
    subscribed: Record<string, string[]>;
    created: Pick<Stream, 'name'>[];
  },
): Promise<number[]> {
  const createdNames = new Set(input.created.map((s) => s.name));
  const recipients = input.targets.flatMap((user) => {
    const names = (input.subscribed[String(user.id)] ?? []).filter((n) => !createdNames.has(n));
    return user.id === input.actor.id || user.isBot || names.length === 0 ? [] : [{ user, names }];
  });
  if (recipients.length === 0) return [];
  const bot = await findNotificationBot(tx, input.realm.id);
  if (!bot) return [];
  const ids: number[] = [];
  for (const { user, names } of recipients) {
    const prepared = await prepareMessage(
      ctx,
      {
        sender: bot,
        realm: input.realm,
        type: 'private',
        to: [user.id],
        content: subscribedYouText(input.actor, names),
        clientName: 'Internal',
        systemNotice: true,
      },
      tx,
    );
    ids.push((await writeMessage(tx, events, prepared)).id);
  }
  return ids;
}
