import type { Realm, Stream, User } from '../../../generated/prisma/client';
import { badRequest } from '../../core/errors';
import type { Db, Tx } from '../../db/client';
import { Permission, requireAccess } from '../permissions/access';
import {
  resolveChannel,
  resolveDirectUsers,
  type ChannelTarget,
  type DirectRecipientUser,
  type DirectTarget,
} from './addressees';
import { normalizeTopic } from './topic-name';
import type { PlainReads } from '../realm-row-cache';
import { CHANNEL_TYPES } from './types';

/** Where a message goes: a channel and topic, or the users of a direct message. */
export interface CheckedAddressee {
  channel: Stream | null;
  topic: string;
  directUsers: DirectRecipientUser[];
}

/** A sender's draft in an organization, whose addressee is to be checked. */
export interface AddresseeCheck {
  realm: Realm;
  sender: User;
  draft: { type: string; to: ChannelTarget | DirectTarget; topic?: string };
  /** The server speaking (a notification bot's notice). */
  systemNotice?: boolean;
  /** Read the channel with plain pg or from memory, outside any transaction (`resolveChannel`). */
  plain?: PlainReads;
}

/**
 * Zulip's check_message for the addressee, shared by sending and scheduling: the channel or the
 * users exist, a channel message has a valid topic, and the sender may post there. A system
 * notice (the server speaking) may post to any channel that is not archived.
 */
export async function checkAddressee(
  db: Db | Tx,
  { realm, sender, draft, systemNotice, plain }: AddresseeCheck,
): Promise<CheckedAddressee> {
  if (!(CHANNEL_TYPES as readonly string[]).includes(draft.type)) {
    const directUsers = await resolveDirectUsers(db, realm, draft.to);
    await requireAccess(db, {
      auth: { user: sender, realm },
      permission: Permission.DirectMessageSend,
      ids: directUsers.map((u) => u.id),
      recipients: directUsers,
    });
    return { channel: null, topic: '', directUsers };
  }
  if (draft.topic === undefined) throw badRequest('Missing topic');
  const channel = await resolveChannel(db, realm, draft.to, plain);
  const topic = normalizeTopic(draft.topic, realm);
  await requireAccess(db, {
    auth: { user: sender },
    permission: systemNotice ? Permission.ChannelNotice : Permission.ChannelSend,
    ids: [channel.id],
    channels: [channel],
  });
  return { channel, topic, directUsers: [] };
}
