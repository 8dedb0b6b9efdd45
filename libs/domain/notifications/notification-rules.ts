import { Flag } from '../messages/flags';

/**
 * Who is told about a message outside the app, and why: Zulip's rules (zerver/lib/
 * notification_data.py and the "away" test of zerver/tornado/event_queue.py), as pure functions.
 * docs/notifications.md states the same rules in prose; the tests hold both to them.
 */

/** Why a user is notified, in Zulip's order of precedence (its NotificationTriggers names). */
export const Trigger = {
  DIRECT_MESSAGE: 'direct_message',
  MENTION: 'mentioned',
  TOPIC_WILDCARD_MENTION_IN_FOLLOWED_TOPIC: 'topic_wildcard_mentioned_in_followed_topic',
  STREAM_WILDCARD_MENTION_IN_FOLLOWED_TOPIC: 'stream_wildcard_mentioned_in_followed_topic',
  TOPIC_WILDCARD_MENTION: 'topic_wildcard_mentioned',
  STREAM_WILDCARD_MENTION: 'stream_wildcard_mentioned',
  FOLLOWED_TOPIC: 'followed_topic',
  CHANNEL: 'stream',
  ALERT_WORD: 'alert_word',
} as const;
export type TriggerName = (typeof Trigger)[keyof typeof Trigger];
export const TRIGGERS = Object.values(Trigger);

/** UserTopic.visibilityPolicy codes. */
export const Visibility = { INHERIT: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 } as const;

/** The user's own notification settings (User columns of the same names). */
export interface UserNotificationSettings {
  enableOfflineEmailNotifications: boolean;
  enableOfflinePushNotifications: boolean;
  enableOnlinePushNotifications: boolean;
  enableStreamEmailNotifications: boolean;
  enableStreamPushNotifications: boolean;
  enableFollowedTopicEmailNotifications: boolean;
  enableFollowedTopicPushNotifications: boolean;
  enableFollowedTopicWildcardMentionsNotify: boolean;
  wildcardMentionsNotify: boolean;
}

/** A channel subscription's own settings; null inherits the user's default. */
export interface SubscriptionNotificationSettings {
  isMuted: boolean;
  emailNotifications: boolean | null;
  pushNotifications: boolean | null;
  wildcardMentionsNotify: boolean | null;
}

/** Everything the rules need about one recipient of one message. */
export interface RecipientFacts {
  userId: number;
  senderId: number;
  isBot: boolean;
  /** The recipient's UserMessage flags bits for the message. */
  flags: number;
  /** The recipient muted the sender. */
  senderMuted: boolean;
  settings: UserNotificationSettings;
  /** Channel messages only: the recipient's subscription and their policy for the topic. */
  channel: { subscription: SubscriptionNotificationSettings; topicVisibility: number } | null;
}

export interface NotificationDecision {
  /** Why an email would go out if the user is away; null: no email. */
  email: TriggerName | null;
  /** Why a push goes out (if away, or always with online push on); null: no push. */
  push: TriggerName | null;
  /** Whether the push goes out even while the user is not away (enable_online_push_notifications). */
  pushWhileOnline: boolean;
}

const NONE: NotificationDecision = { email: null, push: null, pushWhileOnline: false };

/** One notification setting of a subscription, as it applies in one of the channel's topics. */
export interface TopicNotificationSetting {
  subscription: SubscriptionNotificationSettings;
  topicVisibility: number;
  /** The subscription's own value; null inherits `userDefault`. */
  subscriptionSetting: boolean | null;
  userDefault: boolean;
}

/**
 * Zulip's user_allows_notifications_in_StreamTopic: a muted topic silences the channel's
 * notifications; a muted channel does too unless the topic is unmuted or followed; otherwise the
 * subscription's setting, or the user's default when the subscription does not say.
 */
export function channelAllows({
  subscription,
  topicVisibility,
  subscriptionSetting,
  userDefault,
}: TopicNotificationSetting): boolean {
  if (topicVisibility === Visibility.MUTED) return false;
  if (
    subscription.isMuted &&
    topicVisibility !== Visibility.UNMUTED &&
    topicVisibility !== Visibility.FOLLOWED
  ) {
    return false;
  }
  return subscriptionSetting ?? userDefault;
}

/** The triggers that apply to this recipient for one medium, in Zulip's order. */
function triggerFor(facts: RecipientFacts, medium: 'email' | 'push'): TriggerName | null {
  const { flags, settings: s, channel } = facts;
  const personalOn =
    medium === 'email' ? s.enableOfflineEmailNotifications : s.enableOfflinePushNotifications;
  const isDirect = (flags & Flag.is_private) !== 0;
  if (isDirect) return personalOn ? Trigger.DIRECT_MESSAGE : null;
  if (!channel) return null;
  const { subscription: sub, topicVisibility } = channel;
  const followed = topicVisibility === Visibility.FOLLOWED;

  // Personal and group mentions notify even in muted channels and topics (Zulip's rule: being
  // named overrides muting); the offline setting of the medium decides.
  if ((flags & Flag.mentioned) !== 0 && personalOn) return Trigger.MENTION;

  const topicWildcard = (flags & Flag.topic_wildcard_mentioned) !== 0;
  const streamWildcard = (flags & Flag.stream_wildcard_mentioned) !== 0;
  if ((topicWildcard || streamWildcard) && personalOn) {
    if (followed && s.enableFollowedTopicWildcardMentionsNotify) {
      return topicWildcard
        ? Trigger.TOPIC_WILDCARD_MENTION_IN_FOLLOWED_TOPIC
        : Trigger.STREAM_WILDCARD_MENTION_IN_FOLLOWED_TOPIC;
    }
    const wildcardsOn = channelAllows({
      subscription: sub,
      topicVisibility,
      subscriptionSetting: sub.wildcardMentionsNotify,
      userDefault: s.wildcardMentionsNotify,
    });
    if (wildcardsOn) {
      return topicWildcard ? Trigger.TOPIC_WILDCARD_MENTION : Trigger.STREAM_WILDCARD_MENTION;
    }
  }
  const followedOn =
    medium === 'email'
      ? s.enableFollowedTopicEmailNotifications
      : s.enableFollowedTopicPushNotifications;
  if (followed && followedOn) return Trigger.FOLLOWED_TOPIC;
  const channelOn = channelAllows({
    subscription: sub,
    topicVisibility,
    subscriptionSetting: medium === 'email' ? sub.emailNotifications : sub.pushNotifications,
    userDefault:
      medium === 'email' ? s.enableStreamEmailNotifications : s.enableStreamPushNotifications,
  });
  if (channelOn) return Trigger.CHANNEL;
  // Alert words notify like mentions, but never in muted channels or topics.
  if (
    (flags & Flag.has_alert_word) !== 0 &&
    personalOn &&
    channelAllows({
      subscription: sub,
      topicVisibility,
      subscriptionSetting: true,
      userDefault: true,
    })
  ) {
    return Trigger.ALERT_WORD;
  }
  return null;
}

/**
 * What one recipient is told about one message, if they are away. Never: the sender, bots,
 * someone who muted the sender, or a copy already read (e.g. the sender's other addressees
 * marked read on send).
 */
export function decideNotifications(facts: RecipientFacts): NotificationDecision {
  if (facts.userId === facts.senderId || facts.isBot || facts.senderMuted) return NONE;
  if ((facts.flags & Flag.read) !== 0) return NONE;
  const email = triggerFor(facts, 'email');
  const push = triggerFor(facts, 'push');
  return {
    email,
    push,
    pushWhileOnline: push !== null && facts.settings.enableOnlinePushNotifications,
  };
}

/** Zulip's OFFLINE_THRESHOLD_SECS: presence not reported as active for this long is idle. */
export const PRESENCE_IDLE_SECONDS = 140;

/** One event queue of the user, as the events tier stores it. */
export interface QueueActivity {
  /** null: every event type. */
  eventTypes: string[] | null;
  /** Last poll (or registration), milliseconds. */
  lastAccessMs: number;
}

/**
 * "Away", as Zulip decides it (receiver_is_off_zulip, or presence idle): the user has no event
 * queue that receives messages and was polled within the queue idle limit, or the user's
 * presence has not been active within the last 140 seconds. Either one is enough.
 */
export function isAway(input: {
  queues: QueueActivity[];
  lastActiveMs: number | null;
  nowMs: number;
  queueIdleSeconds: number;
}): boolean {
  const { queues, lastActiveMs, nowMs, queueIdleSeconds } = input;
  const presenceIdle = lastActiveMs === null || nowMs - lastActiveMs > PRESENCE_IDLE_SECONDS * 1000;
  if (presenceIdle) return true;
  const listening = queues.some(
    (q) =>
      (q.eventTypes === null || q.eventTypes.includes('message')) &&
      nowMs - q.lastAccessMs <= queueIdleSeconds * 1000,
  );
  return !listening;
}
