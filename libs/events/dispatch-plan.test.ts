import { channelMessage, labelled, queueSettings } from '../../test/events-factories';
import type { ClientEvent } from '../protocol/event-catalogue';
import { messageEvent } from '../protocol/events/message';
import type { QueueSettings } from '../protocol/queue';
import {
  batchAudience,
  DeliveryFormatters,
  freshItems,
  parseEntries,
  planAppends,
  planFinish,
  queueIdsOf,
  type DispatchItem,
  type QueueSets,
} from './dispatch-plan';
import type { DomainEventEnvelope } from './domain-stream';
import type { AppendResult, QueueAppend } from './queue-store';
import { parseWakeMessage } from './waker';

const publicMessage = messageEvent({
  message: channelMessage,
  flags: ['read'],
  rawContent: 'x',
  publicChannel: true,
});

const item = (entryId: string, envelope: Partial<DomainEventEnvelope>): DispatchItem => ({
  entryId,
  envelope: {
    outboxId: `o${entryId}`,
    realmId: 1,
    users: [],
    event: labelled(entryId),
    ...envelope,
  },
});

const liveQueues = (...queues: QueueSettings[]) => new Map(queues.map((q) => [q.id, q]));
const formatters = () => new DeliveryFormatters(() => undefined);
const written = (events: ClientEvent[]) => events.map((event) => JSON.stringify(event));

describe('reading a batch', () => {
  it('parses the entries still holding an envelope, in order', () => {
    const envelope = { outboxId: 'o1', realmId: 1, users: [7], event: labelled('a') };
    const entries: [string, string[] | null][] = [
      ['1-0', ['envelope', JSON.stringify(envelope)]],
      ['2-0', null],
      ['3-0', ['other', 'x', 'envelope', JSON.stringify({ ...envelope, outboxId: 'o3' })]],
    ];
    expect(parseEntries(entries)).toEqual([
      { entryId: '1-0', envelope },
      { entryId: '3-0', envelope: { ...envelope, outboxId: 'o3' } },
    ]);
  });

  it('names each user once, and the realms of public channel messages only', () => {
    const items = [
      item('1-0', { users: [7, 8] }),
      item('2-0', { users: [8, 9], realmId: 2, event: publicMessage }),
      item('3-0', { users: [7], realmId: 3 }),
    ];
    expect(batchAudience(items)).toEqual({ users: [7, 8, 9], publicRealms: [2] });
  });

  it('skips rows another entry delivered, and repeats its own entry after a failure', () => {
    const items = [item('1-0', {}), item('2-0', {}), item('3-0', {})];
    const fresh = freshItems(items, [null, '2-0', '1-5']);
    expect(fresh.map((i) => i.entryId)).toEqual(['1-0', '2-0']);
  });

  it('lists every queue the sets name once', () => {
    const sets: QueueSets = {
      ofUser: new Map([
        [7, ['q1', 'q2']],
        [8, ['q3']],
      ]),
      publicOfRealm: new Map([[1, ['q3', 'q4']]]),
    };
    expect([...queueIdsOf(sets)].sort()).toEqual(['q1', 'q2', 'q3', 'q4']);
  });
});

describe('planAppends', () => {
  const sets: QueueSets = {
    ofUser: new Map([
      [7, ['q7a', 'q7b']],
      [8, ['q8', 'q8-gone']],
    ]),
    publicOfRealm: new Map([[1, ['q7a', 'q9-public']]]),
  };
  const q7a = queueSettings({ id: 'q7a', userId: 7, allPublicStreams: true });
  const q7b = queueSettings({ id: 'q7b', userId: 7, eventTypes: ['message'] });
  const q8 = queueSettings({ id: 'q8', userId: 8 });
  const q9 = queueSettings({ id: 'q9-public', userId: 9, allPublicStreams: true });

  it("appends each event to its users' live queues that accept it, in stream order", () => {
    const items = [
      item('1-0', { users: [7, 8], xid: '500', event: labelled('first') }),
      item('2-0', { users: [8], event: labelled('second') }),
    ];
    const appends = planAppends(items, sets, liveQueues(q7a, q7b, q8), formatters());
    expect(appends).toEqual([
      { queueId: 'q7a', events: [labelled('first')], mark: '1-0', xid: '500' },
      { queueId: 'q8', events: [labelled('first')], mark: '1-0', xid: '500' },
      { queueId: 'q8', events: [labelled('second')], mark: '2-0', xid: undefined },
    ]);
  });

  it("shares one client event between the partitions' entries of one outbox row", () => {
    const shared = formatters();
    const row = { outboxId: 'o9', event: labelled('shared') };
    const inOne = planAppends([item('1-0', { ...row, users: [7] })], sets, liveQueues(q7a), shared);
    // Another partition's entry of the row: its own copy of the event, parsed from its own text.
    const copy = { ...row, users: [8], event: labelled('shared') };
    const inOther = planAppends([item('5-0', copy)], sets, liveQueues(q8), shared);
    expect(inOther[0].events[0]).toBe(inOne[0].events[0]);
  });

  it('reaches all-public-channels queues of non-recipients once, without flags', () => {
    const items = [item('1-0', { users: [7], event: publicMessage })];
    const appends = planAppends(items, sets, liveQueues(q7a, q7b, q9), formatters());
    expect(appends.map((a) => a.queueId)).toEqual(['q7a', 'q7b', 'q9-public']);
    const flagsOf = (a: QueueAppend | undefined) =>
      a?.events[0]?.type === 'message' ? a.events[0].flags : null;
    expect(flagsOf(appends[0])).toEqual(['read']);
    expect(flagsOf(appends[2])).toEqual([]);
  });

  it('never crosses realms, even for a queue a set names by mistake', () => {
    const foreign = queueSettings({ id: 'q8', userId: 8, realmId: 2 });
    const items = [item('1-0', { users: [8] })];
    expect(planAppends(items, sets, liveQueues(foreign), formatters())).toEqual([]);
  });
});

describe('planFinish', () => {
  const sets: QueueSets = {
    ofUser: new Map([
      [7, ['q1', 'q2']],
      [8, ['q2', 'q3']],
    ]),
    publicOfRealm: new Map([[1, ['q3']]]),
  };
  const append = (queueId: string, label: string, xid?: string): QueueAppend => ({
    queueId,
    events: [labelled(label)],
    mark: '1-0',
    xid,
  });
  const carried = (label: string, xid: string) => ({
    event: labelled(label),
    xid,
    json: JSON.stringify(labelled(label)),
  });
  const here = { channel: 'here', follows: () => false };
  const result = (a: QueueAppend, lastId: number, waiter = '', follower = ''): AppendResult => ({
    lastId,
    waiter,
    follower,
    written: written(a.events),
  });

  it('wakes a poll of this process directly, with the ids its events got', () => {
    const appends = [append('q1', 'a', '41'), append('q1', 'b', '42')];
    const results = [result(appends[0], 5, 'here'), result(appends[1], 6)];
    const plan = planFinish(appends, results, sets, [], here);
    expect(plan.localWakeups).toEqual([
      ['q1', { kind: 'events', firstId: 5, events: [carried('a', '41')] }],
      ['q1', { kind: 'events', firstId: 6, events: [carried('b', '42')] }],
    ]);
    expect(plan.wakeMessages.size).toBe(0);
    expect(plan.cleanups).toEqual([]);
  });

  it("sends one message per other process, carrying each queue's events from its first id", () => {
    const appends = [
      { queueId: 'q1', events: [labelled('a'), labelled('b')], mark: '1-0' },
      append('q2', 'a'),
      append('q3', 'c'),
      append('q1', 'c'),
    ];
    const results = [
      result(appends[0], 12, 'there'),
      result(appends[1], 3, 'there'),
      result(appends[2], 9, 'elsewhere'),
      result(appends[3], 13),
    ];
    const plan = planFinish(appends, results, sets, [], here);
    expect(plan.localWakeups).toEqual([]);
    expect([...plan.wakeMessages.keys()]).toEqual(['there', 'elsewhere']);
    const there = parseWakeMessage(plan.wakeMessages.get('there')?.text ?? '');
    expect(there.map(([queueId, w]) => [queueId, w.kind === 'events' ? w.firstId : null])).toEqual([
      ['q1', 11],
      ['q2', 3],
      ['q1', 13],
    ]);
    expect(there[0]?.[1]).toEqual({
      kind: 'events',
      firstId: 11,
      events: [carried('a', ''), carried('b', '')],
    });
    expect(parseWakeMessage(plan.wakeMessages.get('elsewhere')?.text ?? '')).toHaveLength(1);
  });

  it('wakes no one for queues without a waiting poll, or for appends already made', () => {
    const appends = [append('q1', 'a'), append('q2', 'b')];
    const plan = planFinish(
      appends,
      [result(appends[0], 4), result(appends[1], -2)],
      sets,
      [],
      here,
    );
    expect(plan).toEqual({ localWakeups: [], wakeMessages: new Map(), cleanups: [] });
  });

  it('cleans a queue found gone out of every set that names it, once', () => {
    const appends = [append('q2', 'a'), append('q2', 'b')];
    const results = [result(appends[0], -1), result(appends[1], -1)];
    const plan = planFinish(appends, results, sets, ['q3'], here);
    expect(plan.cleanups).toEqual([
      { queueId: 'q3', userIds: [8], realmIds: [1] },
      { queueId: 'q2', userIds: [7, 8], realmIds: [] },
    ]);
    expect(plan.localWakeups).toEqual([]);
  });

  it('tells a queue this process follows of every append, waiter or not, and of its loss', () => {
    const following = { channel: 'here', follows: (queueId: string) => queueId !== 'q3' };
    const appends = [
      append('q1', 'a', '41'),
      append('q2', 'b'),
      append('q3', 'c'),
      append('q2', 'd'),
    ];
    const results = [
      result(appends[0], 5),
      result(appends[1], 8, 'there'),
      result(appends[2], 2),
      result(appends[3], -1),
    ];
    const plan = planFinish(appends, results, sets, [], following);
    expect(plan.localWakeups).toEqual([
      ['q1', { kind: 'events', firstId: 5, events: [carried('a', '41')] }],
      ['q2', { kind: 'events', firstId: 8, events: [carried('b', '')] }],
      ['q2', { kind: 'read' }],
    ]);
    expect([...plan.wakeMessages.keys()]).toEqual(['there']);
  });

  it("tells another process's follower of every append, in one entry when its poll waits", () => {
    const appends = [
      append('q1', 'a'),
      append('q1', 'b'),
      append('q2', 'c'),
      append('q3', 'd'),
      append('q2', 'e'),
    ];
    const results = [
      result(appends[0], 5, '', 'there'),
      result(appends[1], 6, '', 'there'),
      result(appends[2], 3, 'there', 'there'),
      result(appends[3], 9, 'elsewhere', 'there'),
      result(appends[4], -2, '', 'there'),
    ];
    const plan = planFinish(appends, results, sets, [], here);
    expect(plan.localWakeups).toEqual([]);
    const told = (channel: string) =>
      parseWakeMessage(plan.wakeMessages.get(channel)?.text ?? '').map(([queueId, w]) => [
        queueId,
        w.kind === 'events' ? w.firstId : w.kind,
      ]);
    expect(told('there')).toEqual([
      ['q1', 5],
      ['q1', 6],
      ['q2', 3],
      ['q3', 9],
      // An append already made: the first delivery may not have told the follower.
      ['q2', 'read'],
    ]);
    expect(told('elsewhere')).toEqual([['q3', 9]]);
  });

  it('sends no message to this process when it is the follower', () => {
    const following = { channel: 'here', follows: () => true };
    const appends = [append('q1', 'a')];
    const plan = planFinish(appends, [result(appends[0], 5, '', 'here')], sets, [], following);
    expect(plan.localWakeups).toHaveLength(1);
    expect(plan.wakeMessages.size).toBe(0);
  });
});
