import { startTestContext, type TestContext } from '../../test/harness';
import { labelled } from '../../test/events-factories';
import {
  carriedEvents,
  committedBefore,
  firstIdOf,
  mergeWakeups,
  wakeChannels,
  type Wakeup,
} from './wake-protocol';

let t: TestContext;
beforeAll(async () => {
  t = await startTestContext();
});
afterAll(() => t.close());

const xidOf = async (db: TestContext['db']) =>
  BigInt((await db.$queryRaw<{ x: string }[]>`SELECT pg_current_xact_id()::text AS x`)[0].x);
const snapshotNow = async () =>
  (await t.db.$queryRaw<{ s: string }[]>`SELECT pg_current_snapshot()::text AS s`)[0].s;

describe('committedBefore', () => {
  it('parses the three parts of a snapshot', () => {
    expect(committedBefore('100:110:103,105', 99n)).toBe(true);
    expect(committedBefore('100:110:103,105', 104n)).toBe(true);
    expect(committedBefore('100:110:103,105', 103n)).toBe(false);
    expect(committedBefore('100:110:', 110n)).toBe(false);
    expect(committedBefore('100:100:', 100n)).toBe(false);
  });

  it('agrees with PostgreSQL: a transaction open at the snapshot is not in it, one done before is', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let openXid = 0n;
    const started = new Promise<void>((resolve) => {
      void t.db.$transaction(async (tx) => {
        openXid = await xidOf(tx as unknown as TestContext['db']);
        resolve();
        await held;
      });
    });
    await started;
    const doneXid = await t.db.$transaction(async (tx) =>
      xidOf(tx as unknown as TestContext['db']),
    );
    const snapshot = await snapshotNow();
    release();
    expect(committedBefore(snapshot, doneXid)).toBe(true);
    expect(committedBefore(snapshot, openXid)).toBe(false);
    const later = await t.db.$transaction(async (tx) => xidOf(tx as unknown as TestContext['db']));
    expect(committedBefore(snapshot, later)).toBe(false);
  });
});

describe('who wakes', () => {
  it("sends a queue's later appends where its first one found the poll waiting", () => {
    expect(
      wakeChannels([
        { queueId: 'q1', waiter: '' },
        { queueId: 'q2', waiter: 'p1' },
        { queueId: 'q1', waiter: 'p2' },
        { queueId: 'q2', waiter: '' },
        { queueId: 'q3', waiter: '' },
      ]),
    ).toEqual([null, 'p1', 'p2', 'p1', null]);
  });
});

describe('event ids', () => {
  const events = (firstId: number, ...labels: string[]): Wakeup => ({
    kind: 'events',
    firstId,
    events: labels.map((label) => ({
      event: labelled(label),
      xid: '90',
      json: JSON.stringify(labelled(label)),
    })),
  });

  it('numbers an append back from the last id it left', () => {
    expect(firstIdOf(12, 3)).toBe(10);
    expect(firstIdOf(0, 1)).toBe(0);
  });

  it('merges wake-ups only while their ids run on', () => {
    expect(mergeWakeups(events(3, 'a'), events(4, 'b'))).toEqual(events(3, 'a', 'b'));
    expect(mergeWakeups(events(3, 'a'), events(5, 'b'))).toEqual({ kind: 'read' });
    expect(mergeWakeups({ kind: 'read' }, events(4, 'b'))).toEqual({ kind: 'read' });
    expect(mergeWakeups(undefined, events(4, 'b'))).toEqual(events(4, 'b'));
  });

  it('answers with carried events only when they follow the last id seen and none is hidden', () => {
    const carried = carriedEvents(events(6, 'a', 'b'), 5, undefined);
    const expected = [
      { ...labelled('a'), id: 6 },
      { ...labelled('b'), id: 7 },
    ];
    expect(carried?.events).toEqual(expected);
    // The answer's JSON splices each stored text with its id, as serializing the events would.
    expect(carried?.json).toBe(JSON.stringify(expected));
    expect(carriedEvents(events(7, 'a'), 5, undefined)).toBeNull();
    expect(carriedEvents({ kind: 'read' }, 5, undefined)).toBeNull();
    expect(carriedEvents(undefined, 5, undefined)).toBeNull();
    // Transaction 90 committed before the registration's snapshot, which shows alert words.
    const registration = { snapshot: '100:110:', eventTypes: ['alert_words'] };
    expect(carriedEvents(events(6, 'a'), 5, registration)).toBeNull();
    expect(
      carriedEvents(events(6, 'a'), 5, { ...registration, eventTypes: ['message'] })?.events,
    ).toEqual([{ ...labelled('a'), id: 6 }]);
  });
});
