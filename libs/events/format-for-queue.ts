import type { ClientEvent } from './outbox';
import type { DispatchableEvent, QueueNarrowTerm, QueueSettings } from './types';

/** Settings whose changes older clients learn through `update_display_settings` (Zulip's legacy list). */
const LEGACY_DISPLAY_SETTINGS = new Set([
  'color_scheme',
  'default_language',
  'demote_inactive_streams',
  'display_emoji_reaction_users',
  'emojiset',
  'enter_sends',
  'fluid_layout_width',
  'high_contrast_mode',
  'left_side_userlist',
  'starred_message_counts',
  'timezone',
  'translate_emoticons',
  'twenty_four_hour_time',
  'user_list_style',
  'web_escape_navigates_to_home_view',
  'web_home_view',
  'web_mark_read_on_scroll_policy',
  'web_stream_unreads_count_display_policy',
]);

/** Settings whose changes older clients learn through `update_global_notifications`. */
const LEGACY_NOTIFICATION_SETTINGS = new Set([
  'desktop_icon_count_display',
  'email_notifications_batching_period_seconds',
  'message_content_in_email_notifications',
  'notification_sound',
  'pm_content_in_desktop_notifications',
  'presence_enabled',
  'realm_name_in_email_notifications_policy',
  'wildcard_mentions_notify',
]);

function legacySettingsType(property: string): string | null {
  if (LEGACY_DISPLAY_SETTINGS.has(property)) return 'update_display_settings';
  if (LEGACY_NOTIFICATION_SETTINGS.has(property) || property.startsWith('enable_')) {
    return 'update_global_notifications';
  }
  return null;
}

export interface MessageShape {
  id?: number;
  type?: string;
  sender_id?: number;
  sender_email?: string;
  stream_id?: number;
  display_recipient?: string | { id: number; email: string }[];
  subject?: string;
  content?: string;
  avatar_url?: string | null;
  [field: string]: unknown;
}

/** Whether a message (with the queue owner's flags) matches a registered narrow. */
export function matchesQueueNarrow(
  narrow: QueueNarrowTerm[],
  message: MessageShape,
  flags: string[],
): boolean {
  return narrow.every((term) => {
    const hit = matchesTerm(term, message, flags);
    return term.negated ? !hit : hit;
  });
}

function sameText(a: unknown, b: unknown): boolean {
  return String(a).toLowerCase() === String(b).toLowerCase();
}

function matchesTerm(term: QueueNarrowTerm, message: MessageShape, flags: string[]): boolean {
  const { operator, operand } = term;
  switch (operator) {
    case 'stream':
    case 'channel':
      if (message.type !== 'stream') return false;
      return typeof operand === 'number' || /^\d+$/.test(String(operand))
        ? Number(operand) === message.stream_id
        : sameText(operand, message.display_recipient);
    case 'topic':
    case 'subject':
      return message.type === 'stream' && sameText(operand, message.subject ?? '');
    case 'sender':
      return typeof operand === 'number'
        ? operand === message.sender_id
        : sameText(operand, message.sender_email);
    case 'is':
      switch (operand) {
        case 'dm':
        case 'private':
          return message.type === 'private';
        case 'starred':
          return flags.includes('starred');
        case 'mentioned':
          return flags.some((f) => f.endsWith('mentioned'));
        case 'alerted':
          return flags.includes('has_alert_word');
        case 'unread':
          return !flags.includes('read');
        default:
          return true;
      }
    case 'dm':
    case 'pm-with': {
      if (message.type !== 'private' || !Array.isArray(message.display_recipient)) return false;
      const wanted = (typeof operand === 'number' ? [operand] : String(operand).split(','))
        .map((x) => String(x).trim().toLowerCase())
        .sort();
      const have = message.display_recipient.map((r) =>
        typeof operand === 'number' ? String(r.id) : r.email.toLowerCase(),
      );
      return wanted.every((w) => have.includes(w));
    }
    default:
      // Search terms and the like cannot be evaluated on single events; Zulip lets them pass.
      return true;
  }
}

/** What clients without the empty_topic_name capability see instead of the empty topic. */
export const EMPTY_TOPIC_FALLBACK_NAME = 'general chat';

function accepts(queue: QueueSettings, type: string): boolean {
  return type === 'heartbeat' || queue.eventTypes === null || queue.eventTypes.includes(type);
}

function stripInternal(event: DispatchableEvent): ClientEvent {
  const out: ClientEvent = { type: event.type };
  for (const [key, value] of Object.entries(event)) {
    if (!key.startsWith('internal_')) out[key] = value;
  }
  return out;
}

export interface DeliveryContext {
  /** API email of a user, for the legacy settings events. */
  emailOf(userId: number): string | undefined;
  /** Whether the owner of the queue is a recipient (false: reached through all_public_streams). */
  isRecipient: boolean;
}

/** The events one queue receives for one domain event: none, one, or several (legacy splits). */
export function eventsForQueue(
  queue: QueueSettings,
  event: DispatchableEvent,
  context: DeliveryContext,
): ClientEvent[] {
  switch (event.type) {
    case 'message':
      return messageForQueue(queue, event, context);
    case 'delete_message':
      return deleteForQueue(queue, event);
    case 'typing':
      if (
        (event.message_type === 'stream' || event.message_type === 'channel') &&
        !queue.capabilities.stream_typing_notifications
      ) {
        return [];
      }
      return accepts(queue, 'typing') ? [stripInternal(event)] : [];
    case 'user_settings':
      return settingsForQueue(queue, event, context);
    case 'realm_linkifiers':
      // RFC 6570 templates are not the URL format strings older clients read (FL 176).
      if (!queue.capabilities.linkifier_url_template) return [];
      return accepts(queue, 'realm_linkifiers') ? [stripInternal(event)] : [];
    case 'realm_user':
      // Zulip's "Unknown user" add goes only to clients that keep a complete user list.
      if (event.internal_inaccessible_user && queue.capabilities.user_list_incomplete) return [];
      return accepts(queue, 'realm_user') ? [stripInternal(event)] : [];
    default:
      return accepts(queue, event.type) ? [stripInternal(event)] : [];
  }
}

/**
 * What eventsForQueue reads of a queue's registration, as one string, kept per queue object:
 * queues with the same key receive the same events, but for the owner-specific parts named in
 * `ownerKey`. Whatever setting eventsForQueue comes to read belongs here.
 */
const settingsKeys = new WeakMap<QueueSettings, string>();
/** Queues registered alike share their settings objects (QueueStore.settingsOf): each serialized once. */
const settingTexts = new WeakMap<object, string>();

function settingText(value: object | null): string {
  if (value === null) return 'null';
  let text = settingTexts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    settingTexts.set(value, text);
  }
  return text;
}

function settingsKey(queue: QueueSettings): string {
  let key = settingsKeys.get(queue);
  if (key === undefined) {
    key = [
      settingText(queue.eventTypes),
      settingText(queue.narrow),
      queue.applyMarkdown,
      queue.clientGravatar,
      settingText(queue.capabilities),
    ].join('|');
    settingsKeys.set(queue, key);
  }
  return key;
}

/** The part of a queue's events that depends on who owns it and which queue it is. */
function ownerKey(queue: QueueSettings, event: DispatchableEvent, isRecipient: boolean): string {
  switch (event.type) {
    case 'message': {
      const own = isRecipient && event.internal_user_flags?.[String(queue.userId)] !== undefined;
      const flags = own ? `u${queue.userId}` : isRecipient ? 'r' : 'n';
      return event.sender_queue_id === queue.id ? `${flags}:${queue.id}` : flags;
    }
    case 'user_settings':
      return `u${queue.userId}`;
    default:
      return '';
  }
}

/**
 * The events of one domain event for each of many queues, every distinct result built once and
 * shared (the same objects) by the queues it serves: a message to a big channel is one event for
 * nearly all of its recipients, and the queue store serializes each object once.
 */
export class QueueEventFormatter {
  private readonly built = new Map<string, ClientEvent[]>();

  constructor(
    private readonly event: DispatchableEvent,
    private readonly emailOf: DeliveryContext['emailOf'],
  ) {}

  forQueue(queue: QueueSettings, isRecipient: boolean): ClientEvent[] {
    const key = `${settingsKey(queue)}|${ownerKey(queue, this.event, isRecipient)}`;
    let events = this.built.get(key);
    if (!events) {
      events = eventsForQueue(queue, this.event, { isRecipient, emailOf: this.emailOf });
      this.built.set(key, events);
    }
    return events;
  }
}

function messageForQueue(
  queue: QueueSettings,
  event: DispatchableEvent,
  context: DeliveryContext,
): ClientEvent[] {
  if (!accepts(queue, 'message')) return [];
  const message = { ...(event.message as MessageShape) };
  const ownFlags = event.internal_user_flags?.[String(queue.userId)];
  const flags = context.isRecipient
    ? (ownFlags ?? (event.flags as string[] | undefined) ?? [])
    : [];
  if (queue.narrow.length && !matchesQueueNarrow(queue.narrow, message, flags)) return [];
  const raw = event.internal_raw_content ?? (event.raw_content as string | undefined);
  if (!queue.applyMarkdown) {
    message.content = raw ?? message.content;
    message.content_type = 'text/x-markdown';
  } else {
    message.content_type = 'text/html';
  }
  if (
    queue.clientGravatar &&
    typeof message.avatar_url === 'string' &&
    message.avatar_url.startsWith('https://secure.gravatar.com/')
  ) {
    message.avatar_url = null;
  }
  if (!queue.capabilities.empty_topic_name && message.type === 'stream' && message.subject === '') {
    message.subject = EMPTY_TOPIC_FALLBACK_NAME;
  }
  const {
    raw_content: _raw,
    sender_queue_id: senderQueueId,
    local_id: localId,
    ...rest
  } = stripInternal(event);
  void _raw;
  const out: ClientEvent = { ...rest, type: 'message', message, flags };
  // Only the queue that sent the message learns its local id (Zulip's local echo).
  if (senderQueueId !== undefined && senderQueueId === queue.id && localId !== undefined) {
    out.local_message_id = localId;
  }
  return [out];
}

function deleteForQueue(queue: QueueSettings, event: DispatchableEvent): ClientEvent[] {
  if (!accepts(queue, 'delete_message')) return [];
  const base = stripInternal(event);
  const ids = event.message_ids as number[] | undefined;
  if (queue.capabilities.bulk_message_deletion || !Array.isArray(ids)) return [base];
  const { message_ids: _ids, ...rest } = base;
  void _ids;
  return ids.map((id) => ({ ...rest, type: 'delete_message', message_id: id }));
}

function settingsForQueue(
  queue: QueueSettings,
  event: DispatchableEvent,
  context: DeliveryContext,
): ClientEvent[] {
  const out: ClientEvent[] = [];
  if (accepts(queue, 'user_settings')) out.push(stripInternal(event));
  if (queue.capabilities.user_settings_object || event.op !== 'update') return out;
  const property = String(event.property);
  const legacyType = legacySettingsType(property);
  if (!legacyType || !accepts(queue, legacyType)) return out;
  const user = context.emailOf(queue.userId) ?? '';
  const legacy: ClientEvent =
    legacyType === 'update_display_settings'
      ? { type: legacyType, user, setting_name: property, setting: event.value }
      : { type: legacyType, user, notification_name: property, setting: event.value };
  if (event.language_name !== undefined) legacy.language_name = event.language_name;
  out.push(legacy);
  return out;
}
