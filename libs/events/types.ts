import type { ClientEvent } from './outbox';

/**
 * The envelope contract between API replicas and the events tier.
 *
 * An envelope (`DomainEventEnvelope` in domain-stream.ts) carries one client event and the ids of the
 * users it is for. The dispatcher delivers `event` to every queue of those users, after
 * filtering (event_types, narrow, all_public_streams) and per-queue formatting. Fields whose names
 * start with `internal_` never reach clients; they let one envelope serve queues with different
 * client capabilities:
 *
 * - `message` events: `message` is formatted for apply_markdown=true and client_gravatar=false
 *   (`content` is the rendered HTML, `avatar_url` always set). `flags` are the flags of every
 *   recipient unless `internal_user_flags[userId]` overrides them. `raw_content` (or
 *   `internal_raw_content`) is the Markdown source, used for queues registered with
 *   apply_markdown=false (without it such queues receive the rendered HTML). `sender_queue_id` +
 *   `local_id` give the sending queue `local_message_id`; none of these three reach clients.
 *   `subject` '' (the empty topic) becomes "general chat" for queues without empty_topic_name.
 *   A message travels in one envelope whatever its recipients' flags. `internal_public_channel`
 *   marks a message to a public channel: it also reaches the realm's all_public_streams queues
 *   (with no flags) of users who are not recipients.
 * - `delete_message` events use the bulk form (`message_ids`); queues without the
 *   bulk_message_deletion capability receive one event per id with `message_id`.
 * - `user_settings` events (op update) also produce the legacy `update_display_settings` /
 *   `update_global_notifications` events for queues without user_settings_object.
 * - `typing` events about a channel reach only queues with stream_typing_notifications.
 * - `realm_linkifiers` events reach only queues with linkifier_url_template.
 * - `realm_user` add events marked `internal_inaccessible_user` (the "Unknown user" placeholder)
 *   skip queues with user_list_incomplete.
 */
export interface MessageEventExtras {
  internal_raw_content?: string;
  internal_user_flags?: Record<string, string[]>;
  internal_public_channel?: boolean;
}

export type DispatchableEvent = ClientEvent & MessageEventExtras;

/** Capabilities a client declared at registration (`client_capabilities`). */
export interface ClientCapabilities {
  notification_settings_null: boolean;
  bulk_message_deletion: boolean;
  user_avatar_url_field_optional: boolean;
  stream_typing_notifications: boolean;
  user_settings_object: boolean;
  linkifier_url_template: boolean;
  user_list_incomplete: boolean;
  include_deactivated_groups: boolean;
  archived_channels: boolean;
  empty_topic_name: boolean;
}

export const DEFAULT_CAPABILITIES: ClientCapabilities = {
  notification_settings_null: false,
  bulk_message_deletion: false,
  user_avatar_url_field_optional: false,
  stream_typing_notifications: false,
  user_settings_object: false,
  linkifier_url_template: false,
  user_list_incomplete: false,
  include_deactivated_groups: false,
  archived_channels: false,
  empty_topic_name: false,
};

/** A narrow term as registered: `[operator, operand]`, optionally negated. */
export interface QueueNarrowTerm {
  operator: string;
  operand: string | number;
  negated?: boolean;
}

/** Everything about a queue; stored as a Redis hash so any events replica can serve it. */
export interface QueueInfo {
  id: string;
  userId: number;
  realmId: number;
  /** null = every event type */
  eventTypes: string[] | null;
  narrow: QueueNarrowTerm[];
  allPublicStreams: boolean;
  applyMarkdown: boolean;
  clientGravatar: boolean;
  slimPresence: boolean;
  capabilities: ClientCapabilities;
  /** Name of the client (User-Agent), for diagnostics. */
  client: string;
  lastAccess: number;
  /** What `POST /register` read the initial state from; see `RegistrationSnapshot`. */
  snapshot?: RegistrationSnapshot;
}

/** What dispatch needs of a queue: its owner and its registration settings, which never change. */
export type QueueSettings = Omit<QueueInfo, 'lastAccess' | 'snapshot'>;

/**
 * The database snapshot (`pg_current_snapshot()` as text) a registration read its initial state
 * from, and the event types that state covers.
 */
export interface RegistrationSnapshot {
  snapshot: string;
  eventTypes: string[];
}

/** A client event with its queue-assigned id. */
export interface QueuedEvent extends ClientEvent {
  id: number;
}
