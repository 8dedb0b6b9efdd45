import { Jobs } from '../jobs';
import { alertWordsEvent } from '../protocol/events/alert-words';
import { type Organization, organization } from '../../test/organization';
import { flushPublishedMarks, inTransaction } from './outbox';

/** A transaction's events and owed jobs are written at its end, in one statement, or not at all. */
let org: Organization<'alice'>;

beforeAll(async () => {
  org = await organization({ members: { alice: 'member' } });
});
afterAll(() => org.close());

const newestOutboxId = async () =>
  (await org.t.db.outboxEvent.aggregate({ _max: { id: true } }))._max.id ?? 0n;

it('writes the events in the order they were emitted, with the jobs owed', async () => {
  const before = await newestOutboxId();
  const alice = org.users.alice.user.id;
  const jobId = `outbox-test-${Date.now()}`;
  await inTransaction(org.t, async (_tx, events) => {
    for (const word of ['one', 'two', 'three']) {
      await events.emit(org.realm.id, alertWordsEvent({ alert_words: [word] }), [alice]);
    }
    events.owe(Jobs.notifyMessage, [{ payload: { messageId: 1 }, jobId }]);
  });
  const rows = await org.t.db.outboxEvent.findMany({
    where: { id: { gt: before } },
    orderBy: { id: 'asc' },
  });
  expect(rows.map((r) => (r.eventJson as { alert_words: string[] }).alert_words)).toEqual([
    ['one'],
    ['two'],
    ['three'],
  ]);
  // Published at once, marked with the process's other rows of the window.
  await flushPublishedMarks(org.t);
  const marked = await org.t.db.outboxEvent.count({
    where: { id: { gt: before }, publishedAt: { not: null } },
  });
  expect(marked).toBe(3);
  expect(await org.t.db.jobOutbox.count({ where: { jobId } })).toBe(1);
});

it('writes nothing when the transaction fails', async () => {
  const before = await newestOutboxId();
  const jobId = `outbox-test-failed-${Date.now()}`;
  await expect(
    inTransaction(org.t, async (_tx, events) => {
      await events.emit(org.realm.id, alertWordsEvent({ alert_words: ['never'] }), [
        org.users.alice.user.id,
      ]);
      events.owe(Jobs.notifyMessage, [{ payload: { messageId: 1 }, jobId }]);
      throw new Error('refused');
    }),
  ).rejects.toThrow('refused');
  expect(await newestOutboxId()).toBe(before);
  expect(await org.t.db.jobOutbox.count({ where: { jobId } })).toBe(0);
});
