import { lockRow } from '../../db/locks';
import type { User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { listAlertWords } from './list-alert-words';
import { cleanAlertWords } from './clean-alert-words';
import { alertWordsEvent } from '../../protocol/events/alert-words';

/** Removes words (case-insensitively) and sends the new list in an `alert_words` event. */
export async function removeAlertWords(
  ctx: AppContext,
  user: User,
  words: string[],
): Promise<string[]> {
  return inTransaction(ctx, async (tx, events) => {
    // A user's alert words change one request at a time (under the user's row).
    await lockRow(tx, 'users', user.id);
    // Compared here rather than with Prisma's case-insensitive `equals`, which becomes ILIKE:
    // a word ending in a backslash is a broken LIKE pattern there.
    const unwanted = new Set(cleanAlertWords(words).map((w) => w.toLowerCase()));
    const rows = await tx.alertWord.findMany({ where: { userId: user.id } });
    const ids = rows.filter((r) => unwanted.has(r.word.toLowerCase())).map((r) => r.id);
    if (ids.length) await tx.alertWord.deleteMany({ where: { id: { in: ids } } });
    const all = await listAlertWords(tx, user.id);
    await events.emit(user.realmId, alertWordsEvent({ alert_words: all }), [user.id]);
    return all;
  });
}
