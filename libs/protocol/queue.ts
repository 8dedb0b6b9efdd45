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

/** A queue's owner and its registration settings, which never change: what formatting reads. */
export interface QueueSettings {
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
}
