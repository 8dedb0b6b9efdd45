import type { Realm, User } from '../../../generated/prisma/client';
import type { Db } from '../../db/client';
import { badRequest } from '../../core/errors';
import { accessMessage } from './access';
import { contentHtmlDiff } from './html-diff';
import type { EditHistoryEntry } from './types';
import type { ApiMessageSnapshot } from '../../protocol/records';

/**
 * GET /messages/{message_id}/history: snapshots oldest first, rebuilt from the stored entries
 * (Zulip's fill_edit_history_entries).
 */
export async function messageHistory(
  db: Db,
  input: { user: User; realm: Realm; messageId: number },
): Promise<{ message_history: ApiMessageSnapshot[] }> {
  const policy = input.realm.allowEditHistory ? input.realm.messageEditHistoryVisibilityPolicy : 3;
  if (policy === 3) throw badRequest('Message edit history is disabled in this organization');
  const { message } = await accessMessage(db, input.user, input.messageId);
  const stream = await db.stream.findFirst({ where: { recipientId: message.recipientId } });
  const raw = Array.isArray(message.editHistory)
    ? (message.editHistory as unknown as EditHistoryEntry[])
    : [];
  let content = message.content;
  let rendered = message.renderedContent;
  let topic = message.subject;
  let streamId = stream?.id ?? 0;
  const snapshots: ApiMessageSnapshot[] = [];
  for (const entry of raw) {
    const snap: ApiMessageSnapshot = {
      content,
      rendered_content: rendered,
      timestamp: entry.timestamp,
      topic,
      user_id: entry.user_id,
      stream: streamId,
    };
    if (entry.prev_topic !== undefined) {
      topic = entry.prev_topic;
      snap.prev_topic = topic;
    }
    if (entry.prev_stream !== undefined) {
      streamId = entry.prev_stream;
      snap.prev_stream = streamId;
    }
    if (entry.prev_content !== undefined) {
      snap.prev_content = entry.prev_content;
      content = entry.prev_content;
      snap.prev_rendered_content = entry.prev_rendered_content ?? '';
      rendered = snap.prev_rendered_content;
      snap.content_html_diff = contentHtmlDiff(rendered, snap.rendered_content);
    }
    snapshots.push(snap);
  }
  snapshots.push({
    content,
    rendered_content: rendered,
    timestamp: Math.floor(message.dateSent.getTime() / 1000),
    topic,
    user_id: message.senderId,
    stream: streamId,
  });
  return { message_history: snapshots.reverse() };
}
