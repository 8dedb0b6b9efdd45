import { EMPTY_TOPIC_FALLBACK_NAME, eventsForQueue, matchesQueueNarrow } from './format-for-queue';
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
