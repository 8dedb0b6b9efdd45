import { channelMessage, queueSettings } from '../../test/events-factories';
import { eventsForQueue, QueueEventFormatter, type ClientEvent } from './event-catalogue';
import { deleteMessageEvent } from './events/delete-message';
import { messageEvent, type MessageEventInput } from './events/message';
import { userSettingsEvent } from './events/user-settings';
import { matchesQueueNarrow } from './narrow';
import { DEFAULT_CAPABILITIES } from './queue';
import { EMPTY_TOPIC_FALLBACK_NAME } from './topics';

const queue = queueSettings;
const ctx = { isRecipient: true, emailOf: () => 'user7@example.com' };

const message = (input: Partial<MessageEventInput>) =>
  messageEvent({
    message: channelMessage,
    flags: [],
    rawContent: 'x',
    publicChannel: false,
    ...input,
  });

/** The one message event of a queue's events. */
function messageOf(events: ClientEvent[]) {
  const [event] = events;
  if (event?.type !== 'message') throw new Error(`expected a message event, got ${event?.type}`);
  return event;
}

describe('matchesQueueNarrow', () => {
  it('matches channel by name or id, topic case-insensitively, and negation', () => {
    expect(
      matchesQueueNarrow([{ operator: 'channel', operand: 'design' }], channelMessage, []),
    ).toBe(true);
    expect(matchesQueueNarrow([{ operator: 'stream', operand: 3 }], channelMessage, [])).toBe(true);
    expect(matchesQueueNarrow([{ operator: 'topic', operand: 'plans' }], channelMessage, [])).toBe(
      true,
    );
    expect(
      matchesQueueNarrow(
        [{ operator: 'topic', operand: 'plans', negated: true }],
        channelMessage,
        [],
      ),
    ).toBe(false);
    expect(matchesQueueNarrow([{ operator: 'is', operand: 'dm' }], channelMessage, [])).toBe(false);
    expect(
      matchesQueueNarrow([{ operator: 'is', operand: 'starred' }], channelMessage, ['starred']),
    ).toBe(true);
    expect(
      matchesQueueNarrow([{ operator: 'sender', operand: 'B@example.com' }], channelMessage, []),
    ).toBe(true);
  });
});

describe('eventsForQueue', () => {
  it('applies client_gravatar, per-user flags, local echo and the empty-topic fallback', () => {
    const out = eventsForQueue(
      queue({ clientGravatar: true }),
      message({
        message: { ...channelMessage, subject: '' },
        userFlags: { '7': ['mentioned'] },
        senderQueueId: 'q1',
        localId: '1.01',
      }),
      ctx,
    );
    expect(out).toEqual([
      {
        type: 'message',
        flags: ['mentioned'],
        local_message_id: '1.01',
        message: {
          ...channelMessage,
          subject: EMPTY_TOPIC_FALLBACK_NAME,
          avatar_url: null,
          content_type: 'text/html',
        },
      },
    ]);
  });

  it('keeps the empty topic for empty_topic_name clients and hides local ids from other queues', () => {
    const out = messageOf(
      eventsForQueue(
        queue({ capabilities: { ...DEFAULT_CAPABILITIES, empty_topic_name: true } }),
        message({
          message: { ...channelMessage, subject: '' },
          flags: ['read'],
          senderQueueId: 'other',
          localId: '1.01',
        }),
        ctx,
      ),
    );
    expect(out.message.subject).toBe('');
    expect(out).not.toHaveProperty('local_message_id');
    expect(out).not.toHaveProperty('internal');
  });

  it('splits bulk deletions for clients without bulk_message_deletion', () => {
    const event = deleteMessageEvent({ message_ids: [4, 5], message_type: 'private' });
    expect(eventsForQueue(queue(), event, ctx)).toEqual([
      { type: 'delete_message', message_id: 4, message_type: 'private' },
      { type: 'delete_message', message_id: 5, message_type: 'private' },
    ]);
    const bulk = queue({ capabilities: { ...DEFAULT_CAPABILITIES, bulk_message_deletion: true } });
    expect(eventsForQueue(bulk, event, ctx)).toEqual([event]);
  });

  it('adds update_global_notifications for legacy clients', () => {
    const event = userSettingsEvent({ op: 'update', property: 'enable_sounds', value: false });
    expect(eventsForQueue(queue(), event, ctx)).toEqual([
      event,
      {
        type: 'update_global_notifications',
        user: 'user7@example.com',
        notification_name: 'enable_sounds',
        setting: false,
      },
    ]);
    expect(
      eventsForQueue(queue({ eventTypes: ['update_global_notifications'] }), event, ctx),
    ).toEqual([expect.objectContaining({ type: 'update_global_notifications' })]);
  });

  it("follows Zulip's legacy lists: drafts sync is a display setting, newer ones have no legacy form", () => {
    const drafts = userSettingsEvent({
      op: 'update',
      property: 'enable_drafts_synchronization',
      value: false,
    });
    expect(eventsForQueue(queue(), drafts, ctx)).toEqual([
      drafts,
      {
        type: 'update_display_settings',
        user: 'user7@example.com',
        setting_name: 'enable_drafts_synchronization',
        setting: false,
      },
    ]);
    for (const property of ['enable_followed_topic_email_notifications', 'user_list_style']) {
      const event = userSettingsEvent({ op: 'update', property, value: 1 });
      expect(eventsForQueue(queue(), event, ctx)).toEqual([event]);
    }
  });
});

describe('QueueEventFormatter', () => {
  const event = message({
    flags: ['read'],
    userFlags: { '8': ['mentioned'] },
    senderQueueId: 'q-sender',
    localId: '1.01',
  });

  it('shares one result between queues that receive the same events', () => {
    const formatter = new QueueEventFormatter(event, () => undefined);
    const first = formatter.forQueue(queue({ id: 'qa', userId: 5 }), true);
    expect(formatter.forQueue(queue({ id: 'qb', userId: 6 }), true)).toBe(first);
    expect(first).toEqual(eventsForQueue(queue({ id: 'qa', userId: 5 }), event, ctx));
  });

  it('builds its own result wherever the queue or its owner changes what is received', () => {
    const formatter = new QueueEventFormatter(event, () => undefined);
    const plain = formatter.forQueue(queue({ id: 'qa', userId: 5 }), true);
    const variants = [
      formatter.forQueue(queue({ id: 'qm', userId: 8 }), true),
      formatter.forQueue(queue({ id: 'q-sender', userId: 5 }), true),
      formatter.forQueue(queue({ id: 'qp', userId: 9 }), false),
      formatter.forQueue(queue({ id: 'qr', userId: 5, applyMarkdown: false }), true),
      formatter.forQueue(queue({ id: 'qg', userId: 5, clientGravatar: true }), true),
      formatter.forQueue(queue({ id: 'qn', userId: 5, eventTypes: ['typing'] }), true),
      formatter.forQueue(
        queue({ id: 'qt', userId: 5, narrow: [{ operator: 'topic', operand: 'other' }] }),
        true,
      ),
    ];
    expect(variants.map((events) => events === plain)).toEqual(variants.map(() => false));
    expect(messageOf(variants[0]).flags).toEqual(['mentioned']);
    expect(messageOf(variants[1]).local_message_id).toBe('1.01');
    expect(messageOf(variants[2]).flags).toEqual([]);
    expect(messageOf(variants[3]).message.content).toBe('x');
    expect(messageOf(variants[4]).message.avatar_url).toBeNull();
    expect(variants[5]).toEqual([]);
    expect(variants[6]).toEqual([]);
  });

  it('keeps apart keys whose parts only print alike (a local id of "undefined", a "|")', () => {
    const echoed = message({ senderQueueId: 'q-sender', localId: 'undefined' });
    const formatter = new QueueEventFormatter(echoed, () => undefined);
    const other = formatter.forQueue(queue({ id: 'qa', userId: 5 }), true);
    const sender = formatter.forQueue(queue({ id: 'q-sender', userId: 5 }), true);
    expect(messageOf(other).local_message_id).toBeUndefined();
    expect(messageOf(sender).local_message_id).toBe('undefined');

    const flagged = message({ flags: [], userFlags: { '5': ['a|b'], '6': ['a', 'b'] } });
    const byFlags = new QueueEventFormatter(flagged, () => undefined);
    const joined = byFlags.forQueue(queue({ id: 'q5', userId: 5 }), true);
    const split = byFlags.forQueue(queue({ id: 'q6', userId: 6 }), true);
    expect([messageOf(joined).flags, messageOf(split).flags]).toEqual([['a|b'], ['a', 'b']]);
  });

  it("names each queue's owner in legacy settings events", () => {
    const settings = userSettingsEvent({ op: 'update', property: 'enable_sounds', value: false });
    const formatter = new QueueEventFormatter(settings, (id) => `user${id}@example.com`);
    const users = [5, 6].map((userId) => {
      const legacy = formatter.forQueue(queue({ id: `q${userId}`, userId }), true)[1];
      return legacy?.type === 'update_global_notifications' ? legacy.user : undefined;
    });
    expect(users).toEqual(['user5@example.com', 'user6@example.com']);
  });
});
