import { startTestContext, type TestContext } from '../../test/harness';
import { committedBefore } from './snapshot';

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
