import { Flag } from '../messages/flags';
import {
  decideNotifications,
  isAway,
  PRESENCE_IDLE_SECONDS,
  Trigger,
  Visibility,
  type RecipientFacts,
  type SubscriptionNotificationSettings,
  type UserNotificationSettings,
} from './notification-rules';

/** Zulip's defaults for a new account. */
const defaults: UserNotificationSettings = {
  enableOfflineEmailNotifications: true,
  enableOfflinePushNotifications: true,
  enableOnlinePushNotifications: true,
  enableStreamEmailNotifications: false,
  enableStreamPushNotifications: false,
  enableFollowedTopicEmailNotifications: true,
  enableFollowedTopicPushNotifications: true,
  enableFollowedTopicWildcardMentionsNotify: true,
  wildcardMentionsNotify: true,
};
const inherit: SubscriptionNotificationSettings = {
  isMuted: false,
  emailNotifications: null,
  pushNotifications: null,
  wildcardMentionsNotify: null,
};

function direct(over: Partial<RecipientFacts> = {}): RecipientFacts {
  return {
    userId: 2,
    senderId: 1,
    isBot: false,
    flags: Flag.is_private,
    senderMuted: false,
    settings: defaults,
    channel: null,
    ...over,
  };
}

function inChannel(
  flags: number,
  over: {
    sub?: Partial<SubscriptionNotificationSettings>;
    topic?: number;
    settings?: Partial<UserNotificationSettings>;
  } = {},
): RecipientFacts {
  return direct({
    flags,
    settings: { ...defaults, ...over.settings },
    channel: {
      subscription: { ...inherit, ...over.sub },
      topicVisibility: over.topic ?? Visibility.INHERIT,
    },
  });
}

const both = (facts: RecipientFacts) => {
  const d = decideNotifications(facts);
  return [d.email, d.push];
};

describe('who is notified', () => {
  it('direct messages, by email and push', () => {
    expect(both(direct())).toEqual([Trigger.DIRECT_MESSAGE, Trigger.DIRECT_MESSAGE]);
  });

  it('personal and group mentions (the mentioned flag), even in muted channels and topics', () => {
    expect(both(inChannel(Flag.mentioned))).toEqual([Trigger.MENTION, Trigger.MENTION]);
    expect(both(inChannel(Flag.mentioned, { topic: Visibility.MUTED }))).toEqual([
      Trigger.MENTION,
      Trigger.MENTION,
    ]);
    expect(both(inChannel(Flag.mentioned, { sub: { isMuted: true } }))).toEqual([
      Trigger.MENTION,
      Trigger.MENTION,
    ]);
  });

  it('wildcard mentions follow wildcard_mentions_notify, the subscription overriding the user', () => {
    const channelWide = Flag.stream_wildcard_mentioned;
    expect(both(inChannel(channelWide))).toEqual([
      Trigger.STREAM_WILDCARD_MENTION,
      Trigger.STREAM_WILDCARD_MENTION,
    ]);
    expect(both(inChannel(Flag.topic_wildcard_mentioned))).toEqual([
      Trigger.TOPIC_WILDCARD_MENTION,
      Trigger.TOPIC_WILDCARD_MENTION,
    ]);
    expect(both(inChannel(channelWide, { settings: { wildcardMentionsNotify: false } }))).toEqual([
      null,
      null,
    ]);
    expect(
      both(
        inChannel(channelWide, {
          settings: { wildcardMentionsNotify: false },
          sub: { wildcardMentionsNotify: true },
        }),
      ),
    ).toEqual([Trigger.STREAM_WILDCARD_MENTION, Trigger.STREAM_WILDCARD_MENTION]);
    expect(both(inChannel(channelWide, { sub: { wildcardMentionsNotify: false } }))).toEqual([
      null,
      null,
    ]);
  });

  it('wildcard mentions in a followed topic follow the followed-topic wildcard setting', () => {
    const followed = { topic: Visibility.FOLLOWED, settings: { wildcardMentionsNotify: false } };
    expect(both(inChannel(Flag.stream_wildcard_mentioned, followed))).toEqual([
      Trigger.STREAM_WILDCARD_MENTION_IN_FOLLOWED_TOPIC,
      Trigger.STREAM_WILDCARD_MENTION_IN_FOLLOWED_TOPIC,
    ]);
    expect(both(inChannel(Flag.topic_wildcard_mentioned, followed))).toEqual([
      Trigger.TOPIC_WILDCARD_MENTION_IN_FOLLOWED_TOPIC,
      Trigger.TOPIC_WILDCARD_MENTION_IN_FOLLOWED_TOPIC,
    ]);
    // Without it, the followed topic itself still notifies.
    expect(
      both(
        inChannel(Flag.stream_wildcard_mentioned, {
          ...followed,
          settings: { ...followed.settings, enableFollowedTopicWildcardMentionsNotify: false },
        }),
      ),
    ).toEqual([Trigger.FOLLOWED_TOPIC, Trigger.FOLLOWED_TOPIC]);
  });

  it('messages in followed topics, per medium, even in a muted channel', () => {
    expect(both(inChannel(0, { topic: Visibility.FOLLOWED }))).toEqual([
      Trigger.FOLLOWED_TOPIC,
      Trigger.FOLLOWED_TOPIC,
    ]);
    expect(both(inChannel(0, { topic: Visibility.FOLLOWED, sub: { isMuted: true } }))).toEqual([
      Trigger.FOLLOWED_TOPIC,
      Trigger.FOLLOWED_TOPIC,
    ]);
    expect(
      both(
        inChannel(0, {
          topic: Visibility.FOLLOWED,
          settings: { enableFollowedTopicEmailNotifications: false },
        }),
      ),
    ).toEqual([null, Trigger.FOLLOWED_TOPIC]);
  });

  it('channel messages where the subscription (or the user default) asks for them', () => {
    expect(both(inChannel(0))).toEqual([null, null]);
    expect(both(inChannel(0, { sub: { pushNotifications: true } }))).toEqual([
      null,
      Trigger.CHANNEL,
    ]);
    expect(both(inChannel(0, { settings: { enableStreamEmailNotifications: true } }))).toEqual([
      Trigger.CHANNEL,
      null,
    ]);
    expect(
      both(
        inChannel(0, {
          settings: { enableStreamEmailNotifications: true },
          sub: { emailNotifications: false },
        }),
      ),
    ).toEqual([null, null]);
    // An unmuted topic of a muted channel notifies as the channel asks.
    expect(
      both(
        inChannel(0, {
          sub: { isMuted: true, emailNotifications: true },
          topic: Visibility.UNMUTED,
        }),
      ),
    ).toEqual([Trigger.CHANNEL, null]);
  });

  it('alert words, outside muted channels and topics', () => {
    expect(both(inChannel(Flag.has_alert_word))).toEqual([Trigger.ALERT_WORD, Trigger.ALERT_WORD]);
    expect(both(inChannel(Flag.has_alert_word, { topic: Visibility.MUTED }))).toEqual([null, null]);
  });
});

describe('who is not notified', () => {
  it('muted channels and topics silence channel and wildcard notifications', () => {
    const asks = { emailNotifications: true, pushNotifications: true };
    expect(both(inChannel(0, { sub: { ...asks, isMuted: true } }))).toEqual([null, null]);
    expect(both(inChannel(0, { sub: asks, topic: Visibility.MUTED }))).toEqual([null, null]);
    expect(both(inChannel(Flag.stream_wildcard_mentioned, { topic: Visibility.MUTED }))).toEqual([
      null,
      null,
    ]);
    expect(both(inChannel(Flag.topic_wildcard_mentioned, { sub: { isMuted: true } }))).toEqual([
      null,
      null,
    ]);
  });

  it('the sender, bots, users who muted the sender, and copies already read', () => {
    expect(both(direct({ userId: 1 }))).toEqual([null, null]);
    expect(both(direct({ isBot: true }))).toEqual([null, null]);
    expect(both(direct({ senderMuted: true }))).toEqual([null, null]);
    expect(both(direct({ flags: Flag.is_private | Flag.read }))).toEqual([null, null]);
  });

  it("each medium follows the user's enable_offline_* setting", () => {
    const noEmail = { ...defaults, enableOfflineEmailNotifications: false };
    const noPush = { ...defaults, enableOfflinePushNotifications: false };
    expect(both(direct({ settings: noEmail }))).toEqual([null, Trigger.DIRECT_MESSAGE]);
    expect(both(direct({ settings: noPush }))).toEqual([Trigger.DIRECT_MESSAGE, null]);
    expect(both(inChannel(Flag.mentioned, { settings: noPush }))).toEqual([Trigger.MENTION, null]);
    expect(both(inChannel(Flag.stream_wildcard_mentioned, { settings: noEmail }))).toEqual([
      null,
      Trigger.STREAM_WILDCARD_MENTION,
    ]);
  });

  it('enable_online_push_notifications says whether the push also goes out while not away', () => {
    expect(decideNotifications(direct()).pushWhileOnline).toBe(true);
    const off = { ...defaults, enableOnlinePushNotifications: false };
    expect(decideNotifications(direct({ settings: off })).pushWhileOnline).toBe(false);
    expect(decideNotifications(inChannel(0)).pushWhileOnline).toBe(false);
  });
});

describe('what "away" means', () => {
  const now = 1_000_000_000_000;
  const idle = 600;
  const active = now - 10_000;
  const listening = { eventTypes: null, lastAccessMs: now - 30_000 };

  it('not away: presence active within 140 s and a message queue polled within the idle limit', () => {
    expect(
      isAway({ queues: [listening], lastActiveMs: active, nowMs: now, queueIdleSeconds: idle }),
    ).toBe(false);
    expect(
      isAway({
        queues: [{ eventTypes: ['message', 'typing'], lastAccessMs: now - idle * 1000 }],
        lastActiveMs: now - PRESENCE_IDLE_SECONDS * 1000,
        nowMs: now,
        queueIdleSeconds: idle,
      }),
    ).toBe(false);
  });

  it('away: presence idle or never reported, whatever the queues', () => {
    const stale = now - PRESENCE_IDLE_SECONDS * 1000 - 1;
    expect(
      isAway({ queues: [listening], lastActiveMs: stale, nowMs: now, queueIdleSeconds: idle }),
    ).toBe(true);
    expect(
      isAway({ queues: [listening], lastActiveMs: null, nowMs: now, queueIdleSeconds: idle }),
    ).toBe(true);
  });

  it('away: no queue, only queues without message events, or only queues not polled lately', () => {
    const at = (queues: { eventTypes: string[] | null; lastAccessMs: number }[]) =>
      isAway({ queues, lastActiveMs: active, nowMs: now, queueIdleSeconds: idle });
    expect(at([])).toBe(true);
    expect(at([{ eventTypes: ['presence', 'typing'], lastAccessMs: now }])).toBe(true);
    expect(at([{ eventTypes: null, lastAccessMs: now - idle * 1000 - 1 }])).toBe(true);
    expect(at([{ eventTypes: ['typing'], lastAccessMs: now }, listening])).toBe(false);
  });
});
