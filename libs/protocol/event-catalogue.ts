import type { DeliveryContext, EventFormatter } from './formatter';
import type { QueueSettings } from './queue';
import type { HeartbeatEvent } from './events/heartbeat';
import { alertWordsFormatter, type AlertWordsEvent } from './events/alert-words';
import { attachmentFormatter, type AttachmentEvent } from './events/attachment';
import {
  customProfileFieldsFormatter,
  type CustomProfileFieldsEvent,
} from './events/custom-profile-fields';
import { defaultStreamsFormatter, type DefaultStreamsEvent } from './events/default-streams';
import { deleteMessageFormatter, type DeleteMessageEvent } from './events/delete-message';
import { draftsFormatter, type DraftsEvent } from './events/drafts';
import { invitesChangedFormatter, type InvitesChangedEvent } from './events/invites-changed';
import { messageFormatter, type MessageEvent } from './events/message';
import { mutedTopicsFormatter, type MutedTopicsEvent } from './events/muted-topics';
import { mutedUsersFormatter, type MutedUsersEvent } from './events/muted-users';
import { presenceFormatter, type PresenceEvent } from './events/presence';
import { reactionFormatter, type ReactionEvent } from './events/reaction';
import { realmFormatter, type RealmEvent } from './events/realm';
import { realmBotFormatter, type RealmBotEvent } from './events/realm-bot';
import { realmDomainsFormatter, type RealmDomainsEvent } from './events/realm-domains';
import { realmExportFormatter, type RealmExportEvent } from './events/realm-export';
import { realmEmojiFormatter, type RealmEmojiEvent } from './events/realm-emoji';
import { realmLinkifiersFormatter, type RealmLinkifiersEvent } from './events/realm-linkifiers';
import { realmPlaygroundsFormatter, type RealmPlaygroundsEvent } from './events/realm-playgrounds';
import { realmUserFormatter, type RealmUserEvent } from './events/realm-user';
import {
  realmUserSettingsDefaultsFormatter,
  type RealmUserSettingsDefaultsEvent,
} from './events/realm-user-settings-defaults';
import {
  scheduledMessagesFormatter,
  type ScheduledMessagesEvent,
} from './events/scheduled-messages';
import { streamFormatter, type StreamEvent } from './events/stream';
import { subscriptionFormatter, type SubscriptionEvent } from './events/subscription';
import { typingFormatter, type TypingEvent } from './events/typing';
import { updateMessageFormatter, type UpdateMessageEvent } from './events/update-message';
import {
  updateMessageFlagsFormatter,
  type UpdateMessageFlagsEvent,
} from './events/update-message-flags';
import { userGroupFormatter, type UserGroupEvent } from './events/user-group';
import { userSettingsFormatter, type UserSettingsEvent } from './events/user-settings';
import { userStatusFormatter, type UserStatusEvent } from './events/user-status';
import { userTopicFormatter, type UserTopicEvent } from './events/user-topic';

/** Every event type the domain emits, by its `type`. */
export interface EventMap {
  alert_words: AlertWordsEvent;
  attachment: AttachmentEvent;
  custom_profile_fields: CustomProfileFieldsEvent;
  default_streams: DefaultStreamsEvent;
  delete_message: DeleteMessageEvent;
  drafts: DraftsEvent;
  invites_changed: InvitesChangedEvent;
  message: MessageEvent;
  muted_topics: MutedTopicsEvent;
  muted_users: MutedUsersEvent;
  presence: PresenceEvent;
  reaction: ReactionEvent;
  realm: RealmEvent;
  realm_bot: RealmBotEvent;
  realm_domains: RealmDomainsEvent;
  realm_export: RealmExportEvent;
  realm_emoji: RealmEmojiEvent;
  realm_linkifiers: RealmLinkifiersEvent;
  realm_playgrounds: RealmPlaygroundsEvent;
  realm_user: RealmUserEvent;
  realm_user_settings_defaults: RealmUserSettingsDefaultsEvent;
  scheduled_messages: ScheduledMessagesEvent;
  stream: StreamEvent;
  subscription: SubscriptionEvent;
  typing: TypingEvent;
  update_message: UpdateMessageEvent;
  update_message_flags: UpdateMessageFlagsEvent;
  user_group: UserGroupEvent;
  user_settings: UserSettingsEvent;
  user_status: UserStatusEvent;
  user_topic: UserTopicEvent;
}

export type EventType = keyof EventMap;

/** An event as a domain action emits it (`EventSink.emit`), `internal` fields included. */
export type DomainEvent = EventMap[EventType];

/** How each event type reaches a queue: a type without its formatter does not compile. */
const formatters = {
  alert_words: alertWordsFormatter,
  attachment: attachmentFormatter,
  custom_profile_fields: customProfileFieldsFormatter,
  default_streams: defaultStreamsFormatter,
  delete_message: deleteMessageFormatter,
  drafts: draftsFormatter,
  invites_changed: invitesChangedFormatter,
  message: messageFormatter,
  muted_topics: mutedTopicsFormatter,
  muted_users: mutedUsersFormatter,
  presence: presenceFormatter,
  reaction: reactionFormatter,
  realm: realmFormatter,
  realm_bot: realmBotFormatter,
  realm_domains: realmDomainsFormatter,
  realm_export: realmExportFormatter,
  realm_emoji: realmEmojiFormatter,
  realm_linkifiers: realmLinkifiersFormatter,
  realm_playgrounds: realmPlaygroundsFormatter,
  realm_user: realmUserFormatter,
  realm_user_settings_defaults: realmUserSettingsDefaultsFormatter,
  scheduled_messages: scheduledMessagesFormatter,
  stream: streamFormatter,
  subscription: subscriptionFormatter,
  typing: typingFormatter,
  update_message: updateMessageFormatter,
  update_message_flags: updateMessageFlagsFormatter,
  user_group: userGroupFormatter,
  user_settings: userSettingsFormatter,
  user_status: userStatusFormatter,
  user_topic: userTopicFormatter,
} satisfies { [T in EventType]: EventFormatter<EventMap[T], unknown> };

/** What each event type becomes for a queue, by type. */
type ClientEventMap = {
  [T in EventType]: (typeof formatters)[T] extends EventFormatter<never, infer C> ? C : never;
};

/** An event as a queue holds it and clients receive it (less the queue-assigned `id`). */
export type ClientEvent = ClientEventMap[EventType] | HeartbeatEvent;

const FORMATTERS: { [T in EventType]: EventFormatter<EventMap[T], ClientEventMap[T]> } = formatters;

/** Whether an event also reaches the realm's all_public_streams queues: messages to public channels. */
export function reachesPublicQueues(event: DomainEvent): boolean {
  return event.type === 'message' && event.internal.publicChannel === true;
}

function formatterOf<T extends EventType>(type: T): EventFormatter<EventMap[T], ClientEventMap[T]> {
  return FORMATTERS[type];
}

/** The events one queue receives for one domain event: none, one, or several (legacy forms). */
export function eventsForQueue<T extends EventType>(
  queue: QueueSettings,
  event: EventMap[T] & { type: T },
  context: DeliveryContext,
): ClientEvent[] {
  return formatterOf<T>(event.type).format(event, queue, context);
}

/**
 * The events of one domain event for each of many queues, every distinct result built once and
 * shared (the same objects) by the queues it serves: a message to a big channel is one event for
 * nearly all of its recipients, and the queue store serializes each object once. Results are
 * shared by the key the event type's formatter derives from what it reads.
 */
export class QueueEventFormatter {
  private readonly built = new Map<string, ClientEvent[]>();

  constructor(
    private readonly event: DomainEvent,
    private readonly emailOf: DeliveryContext['emailOf'],
  ) {}

  forQueue(queue: QueueSettings, isRecipient: boolean): ClientEvent[] {
    const context = { isRecipient, emailOf: this.emailOf };
    const formatter = formatterOf(this.event.type);
    const key = formatter.key(this.event, queue, context);
    let events = this.built.get(key);
    if (!events) {
      events = formatter.format(this.event, queue, context);
      this.built.set(key, events);
    }
    return events;
  }
}
