import type { User } from '../../../generated/prisma/client';
import type { Db } from '../../db/client';
import { badRequest } from '../../core/errors';
import { at } from '../../core/at';

/**
 * Bot storage (`/bot_storage`): string values under string keys, kept for the calling account
 * (the bot runner's state handler). Zulip's zerver/lib/bot_storage.py, with its limit and errors.
 */

/** Zulip's USER_STATE_SIZE_LIMIT: keys and values together, in characters. */
export const BOT_STORAGE_SIZE_LIMIT = 10_000_000;

/** Characters as Python and PostgreSQL count them (code points, not UTF-16 units). */
function characters(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) count--;
  }
  return count;
}

/** PostgreSQL text cannot hold NUL; say so instead of failing inside the database. */
function checkStorable(text: string): void {
  if (text.includes('\0')) throw badRequest('Bot storage cannot hold NUL characters.');
}

/**
 * `PUT /bot_storage`: sets each key. The account's keys and values together stay within the
 * limit; the account's row is locked meanwhile, so concurrent writes cannot pass it together.
 */
export async function putBotStorage(
  db: Db,
  user: User,
  storage: Record<string, string>,
): Promise<void> {
  const entries = Object.entries(storage);
  for (const [key, value] of entries) {
    checkStorable(key);
    checkStorable(value);
  }
  await db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM users WHERE id = ${user.id} FOR UPDATE`;
    const sums = await tx.$queryRaw<{ total: bigint }[]>`
      SELECT COALESCE(SUM(length(key) + length(value)), 0)::bigint AS total
      FROM bot_storage_data WHERE bot_id = ${user.id}`;
    const { total } = at(sums, 0);
    const current = await tx.botStorageData.findMany({
      where: { botId: user.id, key: { in: entries.map(([key]) => key) } },
      select: { key: true, value: true },
    });
    const replaced = current.reduce((sum, r) => sum + characters(r.key) + characters(r.value), 0);
    const added = entries.reduce((sum, [k, v]) => sum + characters(k) + characters(v), 0);
    const size = Number(total) - replaced + added;
    if (size > BOT_STORAGE_SIZE_LIMIT) {
      throw badRequest(
        `Request exceeds storage limit by ${size - BOT_STORAGE_SIZE_LIMIT} characters. The limit is ${BOT_STORAGE_SIZE_LIMIT} characters.`,
      );
    }
    for (const [key, value] of entries) {
      await tx.botStorageData.upsert({
        where: { botId_key: { botId: user.id, key } },
        create: { botId: user.id, key, value },
        update: { value },
      });
    }
  });
}
