import type { User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { listAlertWords } from './list-alert-words';
import { cleanAlertWords } from './clean-alert-words';
import { alertWordsEvent } from '../../protocol/events/alert-words';

export const MAX_ALERT_WORD_LENGTH = 100;

/**
 * Words one user may keep. Every message to the user is matched against all of them, and the
 * matcher is built from their total length, so an unbounded list would let one user slow the
 * process down for everybody.
 */
export const MAX_ALERT_WORDS = 1000;

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
    await events.emit(user.realmId, alertWordsEvent({ alert_words: all }), [user.id]);
    return all;
  });
}
