import { labelled } from '../../test/events-factories';
import { FOLLOW_MS, FollowedQueues, type ForgottenQueue } from './followed-queues';
import type { CarriedEvent } from './polled-events';
import type { Wakeup } from './wake-protocol';

const event = (n: number, xid = ''): CarriedEvent => ({
  event: labelled(String(n)),
  xid,
  json: JSON.stringify(labelled(String(n))),
});
const appended = (firstId: number, ...ns: number[]): [string, Wakeup] => [
  '3:q',
  { kind: 'events', firstId, events: ns.map((n) => event(n)) },
];
const ids = (answer: ReturnType<FollowedQueues['answer']>) =>
  answer && JSON.parse(answer.events.json).map((e: { id: number }) => e.id);

let reread: ForgottenQueue[];
let followed: FollowedQueues;

/** Partition 3 led, and a look at queue `3:q` (user 7) that saw it up to `lastId`. */
function looked(lastId: number, during: [string, Wakeup][] = []): void {
  const token = followed.beforeLook('3:q', 7);
  followed.appended(during);
  followed.looked('3:q', token, lastId, undefined);
}

beforeEach(() => {
  reread = [];
  followed = new FollowedQueues((queues) => reread.push(...queues));
  followed.lead(3);
});

it('answers a poll from the appends since the look, with the ids Redis gave them', () => {
  looked(4);
  followed.appended([appended(5, 50, 51), appended(7, 52)]);
  expect(ids(followed.answer('3:q', 7, 4))).toEqual([5, 6, 7]);
  expect(ids(followed.answer('3:q', 7, 6))).toEqual([7]);
  const waiting = followed.answer('3:q', 7, 7);
  expect(waiting?.events.count).toBe(0);
  expect(waiting?.lastId).toBe(7);
});

it('keeps only the appends a look did not see, whenever their wake-ups came', () => {
  looked(6, [appended(5, 50, 51), appended(7, 52)]);
  expect(ids(followed.answer('3:q', 7, 6))).toEqual([7]);
  followed.appended([appended(6, 51, 52)]);
  followed.appended([appended(8, 53)]);
  expect(ids(followed.answer('3:q', 7, 6))).toEqual([7, 8]);
});

it('sends a poll to Redis when the ids do not follow on', () => {
  looked(4);
  // Id 5 was appended by someone else (a heartbeat).
  followed.appended([appended(6, 50)]);
  expect(followed.answer('3:q', 7, 4)).toBeNull();
  expect(followed.follows('3:q')).toBe(false);

  looked(4, [appended(6, 50)]);
  expect(followed.answer('3:q', 7, 4)).toBeNull();
});

it('sends to Redis a poll acknowledging an id it does not know, or of another user', () => {
  looked(4);
  followed.appended([appended(5, 50)]);
  expect(followed.answer('3:q', 7, 6)).toBeNull();
  expect(followed.answer('3:q', 7, 3)).toBeNull();
  expect(followed.answer('3:q', 8, 4)).toBeNull();
  expect(ids(followed.answer('3:q', 7, 4))).toEqual([5]);
});

it('follows nothing before the look answers, nor in a partition led elsewhere', () => {
  followed.beforeLook('3:q', 7);
  expect(followed.answer('3:q', 7, 4)).toBeNull();
  expect(followed.beforeLook('2:q', 7)).toBeNull();
});

it('sends the waiting polls to Redis when the lease or a delivery is in doubt', () => {
  looked(4);
  followed.distrust(3);
  expect(reread).toEqual([{ queueId: '3:q', userId: 7, acked: -1 }]);
  expect(followed.answer('3:q', 7, 4)).toBeNull();

  looked(4);
  const token = followed.beforeLook('3:q', 7);
  followed.unlead(3);
  followed.looked('3:q', token, 4, undefined);
  expect(followed.answer('3:q', 7, 4)).toBeNull();
});

it("forgets a queue FOLLOW_MS after its look: the look records the poll's access", () => {
  looked(4);
  const now = Date.now();
  expect(followed.answer('3:q', 7, 4, now + FOLLOW_MS - 1000)).not.toBeNull();
  expect(followed.answer('3:q', 7, 4, now + FOLLOW_MS + 1)).toBeNull();
  looked(4);
  followed.appended([appended(5, 50)]);
  followed.answer('3:q', 7, 5);
  reread = [];
  followed.prune(now + FOLLOW_MS + 1000);
  expect(followed.follows('3:q')).toBe(false);
  // A poll waiting on what memory said looks in Redis, which records its waiter there; else
  // Redis learns what memory acknowledged.
  expect(reread).toEqual([{ queueId: '3:q', userId: 7, acked: 5 }]);
});

it('sends to Redis a poll whose events the registration hides', () => {
  const token = followed.beforeLook('3:q', 7);
  followed.looked('3:q', token, 4, { snapshot: '100:100:', eventTypes: ['alert_words'] });
  followed.appended([['3:q', { kind: 'events', firstId: 5, events: [event(50, '90')] }]]);
  expect(followed.answer('3:q', 7, 4)).toBeNull();
});

describe('a queue whose partition another process leads', () => {
  /** A look at queue `2:q` (partition 2, led elsewhere) that saw it up to `lastId`. */
  function lookedRemotely(lastId: number): void {
    const token = followed.beforeLook('2:q', 7);
    expect(token?.remote).toBe(true);
    followed.looked('2:q', token, lastId, undefined);
  }
  const remoteAppend = (firstId: number, ...ns: number[]): [string, Wakeup] => [
    '2:q',
    { kind: 'events', firstId, events: ns.map((n) => event(n)) },
  ];

  it('is followed only while the wake-up channel is trusted', () => {
    expect(followed.beforeLook('2:q', 7)).toBeNull();
    followed.trustRemote();
    expect(followed.beforeLook('3:q', 7)?.remote).toBe(false);
    lookedRemotely(4);
    followed.appended([remoteAppend(5, 50)]);
    expect(ids(followed.answer('2:q', 7, 4))).toEqual([5]);
  });

  it('is forgotten, and its polls read Redis, when the channel may have lost a message', () => {
    followed.trustRemote();
    lookedRemotely(4);
    looked(4);
    followed.distrustRemote();
    expect(reread).toEqual([{ queueId: '2:q', userId: 7, acked: -1 }]);
    expect(followed.answer('2:q', 7, 4)).toBeNull();
    expect(followed.beforeLook('2:q', 7)).toBeNull();
    // The led partition's queue stays followed.
    expect(followed.answer('3:q', 7, 4)).not.toBeNull();
  });

  it('is not answered from a look that began before the channel was doubted', () => {
    followed.trustRemote();
    const token = followed.beforeLook('2:q', 7);
    followed.distrustRemote();
    followed.trustRemote();
    followed.looked('2:q', token, 4, undefined);
    expect(followed.answer('2:q', 7, 4)).toBeNull();
  });

  it('is forgotten when this process comes to lead its partition, or when told to read', () => {
    followed.trustRemote();
    lookedRemotely(4);
    followed.lead(2);
    expect(followed.follows('2:q')).toBe(false);
    followed.unlead(2);
    lookedRemotely(4);
    followed.appended([['2:q', { kind: 'read' }]]);
    expect(followed.follows('2:q')).toBe(false);
  });
});
