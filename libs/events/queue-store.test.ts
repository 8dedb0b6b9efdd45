import { queueSettings } from '../../test/events-factories';
import { type Organization, organization } from '../../test/organization';
import { QueueStore } from './queue-store';

let org: Organization;
let store: QueueStore;

beforeAll(async () => {
  org = await organization();
  store = QueueStore.of(org.t);
});
afterAll(() => org.close());

async function newQueue(): Promise<string> {
  const { id, ...settings } = queueSettings({ userId: org.owner.user.id, realmId: org.realm.id });
  void id;
  return (await store.create(settings)).id;
}

const read = async (queueId: string) => {
  const result = await store.poll(queueId, org.owner.user.id, undefined, null);
  return result.status === 'ok' ? result.events : result.status;
};

describe('QueueStore.append', () => {
  it('appends to many queues in one call, each in order, and skips an entry appended already', async () => {
    const [a, b] = [await newQueue(), await newQueue()];
    const shared = { type: 'message', content: 'the same for everyone' };
    const first = await store.append([
      { queueId: a, events: [shared], mark: '100-0', xid: '7' },
      { queueId: 'gone', events: [shared], mark: '100-0', xid: '7' },
      { queueId: b, events: [shared, { type: 'own' }], mark: '100-0', xid: '7' },
      { queueId: a, events: [{ type: 'next' }], mark: '101-0', xid: '8' },
    ]);
    expect(first.map((r) => r.lastId)).toEqual([0, -1, 1, 1]);
    // One text per distinct event, shared by the queues that got it.
    expect(first[0].written[0]).toBe(first[2].written[0]);
    expect(await read(a)).toEqual([
      { ...shared, id: 0 },
      { type: 'next', id: 1 },
    ]);
    expect(await read(b)).toEqual([
      { ...shared, id: 0 },
      { type: 'own', id: 1 },
    ]);
    // A dispatcher redelivering entry 100-0 after a crash: queue b has it, queue a has 101-0.
    const again = await store.append([
      { queueId: a, events: [shared], mark: '100-0', xid: '7' },
      { queueId: b, events: [shared], mark: '100-0', xid: '7' },
    ]);
    expect(again.map((r) => r.lastId)).toEqual([-2, -2]);
    expect(await read(b)).toHaveLength(2);
  });

  it('hands the waiting process channel to the first append only', async () => {
    const queueId = await newQueue();
    await store.poll(queueId, org.owner.user.id, undefined, 'wake:test');
    const results = await store.append([
      { queueId, events: [{ type: 'one' }] },
      { queueId, events: [{ type: 'two' }] },
    ]);
    expect(results.map((r) => [r.lastId, r.waiter])).toEqual([
      [0, 'wake:test'],
      [1, ''],
    ]);
  });
});

describe('QueueStore.getMany', () => {
  it('reads many queues, sharing the settings of queues registered alike', async () => {
    const [a, b] = [await newQueue(), await newQueue()];
    const [first, second, gone] = await store.getMany([a, b, 'gone']);
    expect(first).toEqual(await store.get(a));
    expect(second?.id).toBe(b);
    expect(second?.capabilities).toBe(first?.capabilities);
    expect(second?.narrow).toBe(first?.narrow);
    expect(gone).toBeNull();
  });
});
