import { Trigger, type TriggerName } from '../notifications/notification-rules';

/**
 * The payloads Zulip's mobile apps read, in Zulip's format (zerver/lib/push_notifications.py):
 * for Android the FCM `data` object (`gcm_payload`) with its options, for iOS the APNs payload
 * (`apns_payload`) whose `custom.zulip` holds the same facts.
 */

/** Zulip truncates the text of a notification to 200 characters. */
const MAX_CONTENT = 200;

export interface PushRealm {
  id: number;
  name: string;
  url: string;
  /** EXTERNAL_HOST: which server the notification comes from. */
  server: string;
}

export interface PushMessage {
  id: number;
  sender: { id: number; email: string; fullName: string; avatarUrl: string };
  dateSentSeconds: number;
  renderedContent: string;
  /** A channel message's place, or a direct message's participants (all of them, sorted by id). */
  place:
    | { kind: 'channel'; channelId: number; channelName: string; topic: string }
    | { kind: 'direct'; participants: { id: number; fullName: string }[] };
}

/** What every notification carries: which server, organization and user it is for. */
export function basePayload(realm: PushRealm, userId: number): Record<string, unknown> {
  return {
    server: realm.server,
    realm_id: realm.id,
    realm_uri: realm.url,
    realm_url: realm.url,
    realm_name: realm.name,
    user_id: userId,
  };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

/** The plain text a notification shows for a rendered message (Zulip's get_mobile_push_content). */
export function pushText(html: string): string {
  return html
    .replace(/<img[^>]*\balt="([^"]*)"[^>]*>/g, '$1')
    .replace(/<br\s*\/?>/g, '\n')
    .replace(/<\/(p|li|h[1-6]|pre|blockquote)>/g, '\n')
    .replace(/<blockquote>\s*/g, '> ')
    .replace(/<[^>]+>/g, '')
    .replace(/&(amp|lt|gt|quot|#39);/g, (entity, name: string) => ENTITIES[name] ?? entity)
    .replace(/\n{2,}/g, '\n')
    .trim();
}

export function truncate(text: string): { content: string; truncated: boolean } {
  if (text.length <= MAX_CONTENT) return { content: text, truncated: false };
  return { content: `${text.slice(0, MAX_CONTENT - 1)}…`, truncated: true };
}

/** The facts about a message both platforms receive. */
function messagePayload(realm: PushRealm, userId: number, message: PushMessage) {
  const data: Record<string, unknown> = {
    ...basePayload(realm, userId),
    sender_id: message.sender.id,
    sender_email: message.sender.email,
    time: message.dateSentSeconds,
  };
  const place = message.place;
  if (place.kind === 'channel') {
    data.recipient_type = 'stream';
    data.stream = place.channelName;
    data.stream_id = place.channelId;
    data.topic = place.topic;
  } else {
    data.recipient_type = 'private';
    // Group direct messages name every participant; a 1:1 conversation is the sender.
    if (place.participants.length > 2) {
      data.pm_users = place.participants.map((p) => p.id).join(',');
    }
  }
  return data;
}

/** Android: FCM data and options for a new message. */
export function gcmMessagePayload(
  realm: PushRealm,
  userId: number,
  message: PushMessage,
): { payload: Record<string, unknown>; options: Record<string, unknown> } {
  const { content, truncated } = truncate(pushText(message.renderedContent));
  return {
    payload: {
      ...messagePayload(realm, userId, message),
      event: 'message',
      zulip_message_id: message.id,
      content,
      content_truncated: truncated,
      sender_full_name: message.sender.fullName,
      sender_avatar_url: message.sender.avatarUrl,
    },
    options: { priority: 'high' },
  };
}

/** The first bold line of an iOS notification. */
function apnsTitle(message: PushMessage): string {
  const place = message.place;
  if (place.kind === 'channel') return `#${place.channelName} > ${place.topic}`;
  if (place.participants.length > 2) {
    return place.participants
      .map((p) => p.fullName)
      .sort()
      .join(', ');
  }
  return message.sender.fullName;
}

/** The second bold line: why the user is told. */
function apnsSubtitle(message: PushMessage, trigger: TriggerName): string {
  const name = message.sender.fullName;
  switch (trigger) {
    case Trigger.MENTION:
      return `${name} mentioned you:`;
    case Trigger.TOPIC_WILDCARD_MENTION:
    case Trigger.TOPIC_WILDCARD_MENTION_IN_FOLLOWED_TOPIC:
      return `${name} mentioned @topic:`;
    case Trigger.STREAM_WILDCARD_MENTION:
    case Trigger.STREAM_WILDCARD_MENTION_IN_FOLLOWED_TOPIC:
      return `${name} mentioned everyone:`;
    default:
      if (message.place.kind === 'direct' && message.place.participants.length <= 2) return '';
      return `${name}:`;
  }
}

/** A new message pushed to one user of an organization, and why they are told. */
export interface MessagePush {
  realm: PushRealm;
  userId: number;
  message: PushMessage;
  trigger: TriggerName;
}

/** iOS: the APNs payload for a new message. Badge counts are not kept, as in Zulip (0). */
export function apnsMessagePayload({
  realm,
  userId,
  message,
  trigger,
}: MessagePush): Record<string, unknown> {
  const { content } = truncate(pushText(message.renderedContent));
  return {
    alert: {
      title: apnsTitle(message),
      subtitle: apnsSubtitle(message, trigger),
      body: content,
    },
    sound: 'default',
    badge: 0,
    custom: { zulip: { ...messagePayload(realm, userId, message), message_ids: [message.id] } },
  };
}

/** Both platforms' "remove" payloads: the app clears the notifications of these messages. */
export function removePayloads(
  realm: PushRealm,
  userId: number,
  messageIds: number[],
): {
  gcm: Record<string, unknown>;
  gcmOptions: Record<string, unknown>;
  apns: Record<string, unknown>;
} {
  const ids = messageIds.join(',');
  return {
    gcm: {
      ...basePayload(realm, userId),
      event: 'remove',
      zulip_message_ids: ids,
      // Apps from before 2019 read only the single id.
      zulip_message_id: messageIds[0],
    },
    gcmOptions: { priority: 'normal' },
    apns: {
      badge: 0,
      custom: { zulip: { ...basePayload(realm, userId), event: 'remove', zulip_message_ids: ids } },
    },
  };
}
