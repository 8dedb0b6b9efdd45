import type { Realm, User } from '../../../generated/prisma/client';
import type { Db } from '../../db/client';
import { accessMessage, HISTORICAL_FLAGS } from './access';
import { formatMessages } from './format-message';
import type { ApiMessage } from './types';
import { at } from '../../core/at';

/** GET /messages/{message_id}: the full message dict with the caller's flags (FL 120). */
export async function getMessage(
  db: Db,
  input: {
    user: User;
    realm: Realm;
    messageId: number;
    applyMarkdown: boolean;
    allowEmptyTopicName: boolean;
  },
): Promise<{ message: ApiMessage; raw_content: string }> {
  const { message, flags } = await accessMessage(db, input.user, input.messageId);
  const formatted = await formatMessages(db, [message], {
    viewer: input.user,
    realm: input.realm,
    applyMarkdown: input.applyMarkdown,
    clientGravatar: false,
    allowEmptyTopicName: input.allowEmptyTopicName,
    flags: new Map([[message.id, flags ?? HISTORICAL_FLAGS]]),
  });
  return { message: at(formatted, 0), raw_content: message.content };
}
