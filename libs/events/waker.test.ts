import { labelled } from '../../test/events-factories';
import { loadConfig } from '../config/load-config';
import { connectRedis } from '../redis/connect';
import { TEST_REDIS_CLUSTER_NODES, TEST_REDIS_URL } from '../../test/harness';
import { parseWakeMessage, WakeMessage, Waker } from './waker';

const config = loadConfig({
  NODE_ENV: 'test',
  REDIS_URL: TEST_REDIS_URL,
  REDIS_CLUSTER_NODES: TEST_REDIS_CLUSTER_NODES,
});

describe('Waker', () => {
  it('counts the polls waiting, each once, whatever the order they stop in', () => {
    const waker = new Waker(connectRedis(config, { lazyConnect: true }), 'waker-test');
    try {
      const first = waker.listen('q1');
      const second = waker.listen('q1');
      const other = waker.listen('q2');
      expect(waker.pollCount).toBe(3);
      first.stop();
      first.stop();
      expect(waker.pollCount).toBe(2);
      other.stop();
      second.stop();
      expect(waker.pollCount).toBe(0);
      waker.listen('q1');
      expect(waker.pollCount).toBe(1);
    } finally {
      waker.close();
    }
  });

  it('wakes every poll still waiting on a queue, and none that stopped', () => {
    const waker = new Waker(connectRedis(config, { lazyConnect: true }), 'waker-test');
    try {
      const polls = ['a', 'b', 'c', 'd'].map(() => waker.listen('q1'));
      const elsewhere = waker.listen('q2');
      polls[1].stop();
      polls[3].stop();
      waker.wake([['q1', { kind: 'read' }]]);
      expect(polls.map((poll) => poll.hasWakeup)).toEqual([true, false, true, false]);
      expect(elsewhere.hasWakeup).toBe(false);
      polls[0].stop();
      polls[2].stop();
      waker.wake([['q1', { kind: 'read' }]]);
      expect(polls.map((poll) => poll.take())).toEqual([
        { kind: 'read' },
        undefined,
        { kind: 'read' },
        undefined,
      ]);
      expect(waker.pollCount).toBe(1);
    } finally {
      waker.close();
    }
  });

  it('keeps the wake-ups a poll has not taken, merged while their ids run on', () => {
    const waker = new Waker(connectRedis(config, { lazyConnect: true }), 'waker-test');
    try {
      const wait = waker.listen('q1');
      const events = (firstId: number, count: number) => ({
        kind: 'events' as const,
        firstId,
        events: Array.from({ length: count }, (_, i) => ({
          event: labelled(`test ${firstId + i}`),
          xid: '7',
          json: JSON.stringify(labelled(`test ${firstId + i}`)),
        })),
      });
      expect(wait.take()).toBeUndefined();
      wait.wake(events(3, 2));
      wait.wake(events(5, 1));
      expect(wait.take()).toEqual(events(3, 3));
      expect(wait.take()).toBeUndefined();
      // A gap, or a wake-up without its events, means the poll must read its queue.
      wait.wake(events(3, 1));
      wait.wake(events(5, 1));
      expect(wait.take()).toEqual({ kind: 'read' });
      wait.wake({ kind: 'read' });
      wait.wake(events(5, 1));
      expect(wait.take()).toEqual({ kind: 'read' });
    } finally {
      waker.close();
    }
  });
});

describe('WakeMessage', () => {
  it('carries each append as the JSON the queue stored, with ids and transactions', () => {
    const message = new WakeMessage();
    message.add('q1', 4, '900', ['{"type":"message","id_note":"a \\"quoted\\" text"}']);
    message.add('q2', 0, '', ['{"type":"heartbeat"}', '{"type":"presence"}']);
    expect(parseWakeMessage(message.text)).toEqual([
      [
        'q1',
        {
          kind: 'events',
          firstId: 4,
          events: [
            {
              event: { type: 'message', id_note: 'a "quoted" text' },
              xid: '900',
              json: '{"type":"message","id_note":"a \\"quoted\\" text"}',
            },
          ],
        },
      ],
      [
        'q2',
        {
          kind: 'events',
          firstId: 0,
          events: [
            { event: { type: 'heartbeat' }, xid: '', json: '{"type":"heartbeat"}' },
            { event: { type: 'presence' }, xid: '', json: '{"type":"presence"}' },
          ],
        },
      ],
    ]);
  });

  it('names queues alone once it carries a megabyte, and never carries their later appends', () => {
    const message = new WakeMessage();
    const big = (c: string) => JSON.stringify({ type: 'message', content: c.repeat(600_000) });
    message.add('q1', 0, '1', [big('x')]);
    message.add('q2', 0, '1', [big('y')]);
    message.add('q2', 1, '1', ['{"type":"small"}']);
    message.add('q3', 0, '1', ['{"type":"small"}']);
    const parsed = parseWakeMessage(message.text);
    expect(parsed.map(([id, wakeup]) => [id, wakeup.kind])).toEqual([
      ['q1', 'events'],
      ['q2', 'read'],
      ['q3', 'events'],
    ]);
    expect(message.text.length).toBeLessThan(700_000);
  });

  it('carries an event that several queues received once', () => {
    const message = new WakeMessage();
    const event = JSON.stringify({ type: 'message', content: 'z'.repeat(1000) });
    for (let i = 0; i < 100; i++) message.add(`q${i}`, i, '5', [event]);
    expect(message.text.length).toBeLessThan(1000 + 100 * 30);
    const parsed = parseWakeMessage(message.text);
    expect(parsed).toHaveLength(100);
    expect(parsed[99]).toEqual([
      'q99',
      {
        kind: 'events',
        firstId: 99,
        events: [{ event: JSON.parse(event), xid: '5', json: event }],
      },
    ]);
  });

  it('names a queue alone when its events are not carried', () => {
    expect(parseWakeMessage('{"events":[],"queues":[["q1"],["q2"]]}')).toEqual([
      ['q1', { kind: 'read' }],
      ['q2', { kind: 'read' }],
    ]);
  });
});
