import type { RealmEmoji } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import type { EventSink } from '../../events/outbox';
import { realmUserAudience } from '../permissions/users';
import { realmEmojiEvent } from '../../protocol/events/realm-emoji';
import type { ApiRealmEmoji } from '../../protocol/records';

const sourceUrl = (emoji: RealmEmoji) =>
  `/user_avatars/${emoji.realmId}/emoji/images/${emoji.fileName ?? ''}`;

/**
 * Every custom emoji, deactivated ones included, keyed by ID: `GET /realm/emoji`, register's
 * `realm_emoji` and the `realm_emoji` event alike. `still_url`: an animated emoji's still image,
 * null for the others.
 */
export async function listRealmEmoji(
  db: Db | Tx,
  realmId: number,
): Promise<Record<string, ApiRealmEmoji>> {
  const rows = await db.realmEmoji.findMany({ where: { realmId }, orderBy: { id: 'asc' } });
  const result: Record<string, ApiRealmEmoji> = {};
  for (const row of rows) {
    result[String(row.id)] = {
      id: String(row.id),
      name: row.name,
      source_url: sourceUrl(row),
      still_url: row.isAnimated ? sourceUrl(row).replace(/\.[^.]+$/, '.png') : null,
      deactivated: row.deactivated,
      author_id: row.authorId,
    };
  }
  return result;
}

export async function sendEmoji(tx: Tx, events: EventSink, realmId: number): Promise<void> {
  await events.emit(
    realmId,
    realmEmojiEvent({ op: 'update', realm_emoji: await listRealmEmoji(tx, realmId) }),
    await realmUserAudience(tx, realmId),
  );
}
