import {
  EMPTY_TOPIC_FALLBACK_NAME,
  eventsForQueue,
  matchesQueueNarrow,
  QueueEventFormatter,
} from './format-for-queue';
import { queueSettings } from '../../test/events-factories';
import { DEFAULT_CAPABILITIES } from './types';

const queue = queueSettings;
const ctx = { isRecipient: true, emailOf: () => 'user7@example.com' };

const streamMessage = {
  id: 10,
  type: 'stream',
  stream_id: 3,
  display_recipient: 'Design',
  subject: 'Plans',
  sender_id: 2,
  sender_email: 'b@example.com',
  content: '<p>x</p>',
  avatar_url: 'https://secure.gravatar.com/avatar/abc?d=identicon',
};

describe('matchesQueueNarrow', () => {
  it('matches channel by name or id, topic case-insensitively, and negation', () => {
    expect(
      matchesQueueNarrow([{ operator: 'channel', operand: 'design' }], streamMessage, []),
    ).toBe(true);
    expect(matchesQueueNarrow([{ operator: 'stream', operand: 3 }], streamMessage, [])).toBe(true);
    expect(matchesQueueNarrow([{ operator: 'topic', operand: 'plans' }], streamMessage, [])).toBe(
      true,
    );
    expect(
      matchesQueueNarrow(
        [{ operator: 'topic', operand: 'plans', negated: true }],
        streamMessage,
        [],
      ),
    ).toBe(false);
    expect(matchesQueueNarrow([{ operator: 'is', operand: 'dm' }], streamMessage, [])).toBe(false);
    expect(
      matchesQueueNarrow([{ operator: 'is', operand: 'starred' }], streamMessage, ['starred']),
    ).toBe(true);
    expect(
      matchesQueueNarrow([{ operator: 'sender', operand: 'B@example.com' }], streamMessage, []),
    ).toBe(true);
  });
});

describe('eventsForQueue', () => {
  it('applies client_gravatar, per-user flags, local echo and the empty-topic fallback', () => {
    const [out] = eventsForQueue(
      queue({ clientGravatar: true }),
      {
        type: 'message',
        message: { ...streamMessage, subject: '' },
        flags: [],
        internal_user_flags: { '7': ['mentioned'] },
        raw_content: 'x',
        sender_queue_id: 'q1',
        local_id: '1.01',
      },
      ctx,
    );
    expect(out).toEqual({
      type: 'message',
      flags: ['mentioned'],
      local_message_id: '1.01',
      message: {
        ...streamMessage,
        subject: EMPTY_TOPIC_FALLBACK_NAME,
        avatar_url: null,
        content_type: 'text/html',
      },
    });
  });

  it('keeps the empty topic for empty_topic_name clients and hides local ids from other queues', () => {
    const [out] = eventsForQueue(
      queue({ capabilities: { ...DEFAULT_CAPABILITIES, empty_topic_name: true } }),
      {
        type: 'message',
        message: { ...streamMessage, subject: '' },
        flags: ['read'],
        sender_queue_id: 'other',
        local_id: '1.01',
      },
      ctx,
    );
    expect((out.message as { subject: string }).subject).toBe('');
    expect(out).not.toHaveProperty('local_message_id');
    expect(out).not.toHaveProperty('sender_queue_id');
  });

  it('splits bulk deletions for clients without bulk_message_deletion', () => {
    const event = { type: 'delete_message', message_ids: [4, 5], message_type: 'private' };
    expect(eventsForQueue(queue(), event, ctx)).toEqual([
      { type: 'delete_message', message_id: 4, message_type: 'private' },
      { type: 'delete_message', message_id: 5, message_type: 'private' },
    ]);
    const bulk = queue({ capabilities: { ...DEFAULT_CAPABILITIES, bulk_message_deletion: true } });
    expect(eventsForQueue(bulk, event, ctx)).toEqual([event]);
  });

  it('adds update_global_notifications for legacy clients', () => {
    const event = { type: 'user_settings', op: 'update', property: 'enable_sounds', value: false };
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
});

describe('QueueEventFormatter', () => {
  const message = {
    type: 'message',
    message: streamMessage,
    flags: [],
    internal_user_flags: { '8': ['mentioned'] },
    raw_content: 'x',
    sender_queue_id: 'q-sender',
    local_id: '1.01',
  };

  it('shares one result between queues that receive the same events', () => {
    const formatter = new QueueEventFormatter(message, () => undefined);
    const first = formatter.forQueue(queue({ id: 'qa', userId: 5 }), true);
    expect(formatter.forQueue(queue({ id: 'qb', userId: 6 }), true)).toBe(first);
    expect(first).toEqual(eventsForQueue(queue({ id: 'qa', userId: 5 }), message, ctx));
  });

  it('builds its own result wherever the queue or its owner changes what is received', () => {
    const formatter = new QueueEventFormatter(message, () => undefined);
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
    expect(variants[0][0].flags).toEqual(['mentioned']);
    expect(variants[1][0].local_message_id).toBe('1.01');
    expect(variants[2][0].flags).toEqual([]);
    expect((variants[3][0].message as { content: string }).content).toBe('x');
    expect((variants[4][0].message as { avatar_url: null }).avatar_url).toBeNull();
    expect(variants[5]).toEqual([]);
    expect(variants[6]).toEqual([]);
  });

  it("names each queue's owner in legacy settings events", () => {
    const event = { type: 'user_settings', op: 'update', property: 'enable_sounds', value: false };
    const formatter = new QueueEventFormatter(event, (id) => `user${id}@example.com`);
    const users = [5, 6].map(
      (userId) => formatter.forQueue(queue({ id: `q${userId}`, userId }), true)[1],
    );
    expect(users.map((legacy) => legacy.user)).toEqual(['user5@example.com', 'user6@example.com']);
  });
});
