import type { Tx } from '../../db/client';
import type { Stream } from '../../../generated/prisma/client';
import type { SystemGroupIds } from '../groups/system-groups';
import { RecipientType } from '../recipients';

export interface ChannelRowInput {
  realmId: number;
  name: string;
  description: string;
  renderedDescription: string;
  creatorId: number | null;
  inviteOnly?: boolean;
  isWebPublic?: boolean;
  historyPublicToSubscribers?: boolean;
  messageRetentionDays?: number | null;
  canAddSubscribersGroupId?: number;
  canAdministerChannelGroupId?: number;
  canRemoveSubscribersGroupId?: number;
  canSendMessageGroupId?: number;
  canSubscribeGroupId?: number;
}

/**
 * Inserts a channel and its recipient row. Permission defaults are Zulip's: administrators
 * remove subscribers, everyone may post, and nobody else administers, adds or self-subscribes
 * to private channels until granted.
 */
export async function insertChannel(
  tx: Tx,
  groups: SystemGroupIds,
  input: ChannelRowInput,
): Promise<Stream> {
  const inviteOnly = input.inviteOnly ?? false;
  const stream = await tx.stream.create({
    data: {
      realmId: input.realmId,
      name: input.name,
      description: input.description,
      renderedDescription: input.renderedDescription,
      creatorId: input.creatorId,
      inviteOnly,
      isWebPublic: input.isWebPublic ?? false,
      historyPublicToSubscribers: input.historyPublicToSubscribers ?? !inviteOnly,
      messageRetentionDays: input.messageRetentionDays ?? null,
      canAddSubscribersGroupId: input.canAddSubscribersGroupId ?? groups['role:nobody'],
      canAdministerChannelGroupId: input.canAdministerChannelGroupId ?? groups['role:nobody'],
      canRemoveSubscribersGroupId:
        input.canRemoveSubscribersGroupId ?? groups['role:administrators'],
      canSendMessageGroupId: input.canSendMessageGroupId ?? groups['role:everyone'],
      canSubscribeGroupId: input.canSubscribeGroupId ?? groups['role:nobody'],
    },
  });
  const recipient = await tx.recipient.create({
    data: { type: RecipientType.STREAM, typeId: stream.id },
  });
  return tx.stream.update({ where: { id: stream.id }, data: { recipientId: recipient.id } });
}
