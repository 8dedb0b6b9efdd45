import type { User } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';

export const MAX_ALERT_WORD_LENGTH = 100;
/**
 * Words one user may keep. Every message to the user is matched against all of them, and the
 * matcher is built from their total length, so an unbounded list would let one user slow the
 * process down for everybody.
 */
export const MAX_ALERT_WORDS = 1000;

export async function listAlertWords(db: Db | Tx, userId: number): Promise<string[]> {
  const rows = await db.alertWord.findMany({
    where: { userId },
    orderBy: { id: 'asc' },
    select: { word: true },
  });
  return rows.map((r) => r.word);
}

/** Trims words and drops empty ones, as Zulip does before adding or removing. */
export const cleanAlertWords = (words: string[]): string[] =>
  words.map((w) => w.trim()).filter((w) => w !== '');

/**
 * Adds words the user does not have yet (compared case-insensitively, keeping the given case) and
 * sends the whole new list in an `alert_words` event.
 */
export async function addAlertWords(
  ctx: AppContext,
  user: User,
  words: string[],
): Promise<string[]> {
  return inTransaction(ctx, async (tx, events) => {
    const existing = new Set((await listAlertWords(tx, user.id)).map((w) => w.toLowerCase()));
    const fresh: string[] = [];
    for (const word of cleanAlertWords(words)) {
      if (existing.has(word.toLowerCase())) continue;
      existing.add(word.toLowerCase());
      fresh.push(word);
    }
    if (existing.size > MAX_ALERT_WORDS) {
      throw badRequest(`Too many alert words (maximum ${MAX_ALERT_WORDS}).`);
    }
    if (fresh.length) {
      await tx.alertWord.createMany({ data: fresh.map((word) => ({ userId: user.id, word })) });
    }
    const all = await listAlertWords(tx, user.id);
    await events.emit(user.realmId, { type: 'alert_words', alert_words: all }, [user.id]);
    return all;
  });
}

/** Removes words (case-insensitively) and sends the new list in an `alert_words` event. */
export async function removeAlertWords(
  ctx: AppContext,
  user: User,
  words: string[],
): Promise<string[]> {
  return inTransaction(ctx, async (tx, events) => {
    // Compared here rather than with Prisma's case-insensitive `equals`, which becomes ILIKE:
    // a word ending in a backslash is a broken LIKE pattern there.
    const unwanted = new Set(cleanAlertWords(words).map((w) => w.toLowerCase()));
    const rows = await tx.alertWord.findMany({ where: { userId: user.id } });
    const ids = rows.filter((r) => unwanted.has(r.word.toLowerCase())).map((r) => r.id);
    if (ids.length) await tx.alertWord.deleteMany({ where: { id: { in: ids } } });
    const all = await listAlertWords(tx, user.id);
    await events.emit(user.realmId, { type: 'alert_words', alert_words: all }, [user.id]);
    return all;
  });
}
