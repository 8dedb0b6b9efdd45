-- CreateTable
CREATE TABLE "realms" (
    "id" SERIAL NOT NULL,
    "string_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "date_created" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deactivated" BOOLEAN NOT NULL DEFAULT false,
    "org_type" INTEGER NOT NULL DEFAULT 0,
    "plan_type" INTEGER NOT NULL DEFAULT 1,
    "invite_required" BOOLEAN NOT NULL DEFAULT true,
    "emails_restricted_to_domains" BOOLEAN NOT NULL DEFAULT false,
    "disallow_disposable_email_addresses" BOOLEAN NOT NULL DEFAULT true,
    "waiting_period_threshold" INTEGER NOT NULL DEFAULT 0,
    "max_invites" INTEGER,
    "send_welcome_emails" BOOLEAN NOT NULL DEFAULT true,
    "require_unique_names" BOOLEAN NOT NULL DEFAULT false,
    "email_changes_disabled" BOOLEAN NOT NULL DEFAULT false,
    "name_changes_disabled" BOOLEAN NOT NULL DEFAULT false,
    "avatar_changes_disabled" BOOLEAN NOT NULL DEFAULT false,
    "authentication_methods" JSONB NOT NULL DEFAULT '{}',
    "allow_message_editing" BOOLEAN NOT NULL DEFAULT true,
    "message_content_edit_limit_seconds" INTEGER DEFAULT 600,
    "message_content_delete_limit_seconds" INTEGER,
    "move_messages_within_stream_limit_seconds" INTEGER DEFAULT 604800,
    "move_messages_between_streams_limit_seconds" INTEGER DEFAULT 604800,
    "allow_edit_history" BOOLEAN NOT NULL DEFAULT true,
    "message_edit_history_visibility_policy" INTEGER NOT NULL DEFAULT 1,
    "message_retention_days" INTEGER,
    "mandatory_topics" BOOLEAN NOT NULL DEFAULT false,
    "topics_policy" INTEGER NOT NULL DEFAULT 2,
    "enable_read_receipts" BOOLEAN NOT NULL DEFAULT false,
    "inline_image_preview" BOOLEAN NOT NULL DEFAULT true,
    "inline_url_embed_preview" BOOLEAN NOT NULL DEFAULT false,
    "default_code_block_language" TEXT NOT NULL DEFAULT '',
    "default_language" TEXT NOT NULL DEFAULT 'en',
    "enable_spectator_access" BOOLEAN NOT NULL DEFAULT false,
    "presence_disabled" BOOLEAN NOT NULL DEFAULT false,
    "enable_guest_user_indicator" BOOLEAN NOT NULL DEFAULT true,
    "enable_guest_user_dm_warning" BOOLEAN NOT NULL DEFAULT true,
    "want_advertise_in_communities_directory" BOOLEAN NOT NULL DEFAULT false,
    "video_chat_provider" INTEGER NOT NULL DEFAULT 1,
    "jitsi_server_url" TEXT,
    "giphy_rating" INTEGER NOT NULL DEFAULT 2,
    "digest_emails_enabled" BOOLEAN NOT NULL DEFAULT false,
    "digest_weekday" INTEGER NOT NULL DEFAULT 1,
    "message_content_allowed_in_email_notifications" BOOLEAN NOT NULL DEFAULT true,
    "push_notifications_enabled" BOOLEAN NOT NULL DEFAULT false,
    "push_notifications_enabled_end_time" TIMESTAMPTZ(6),
    "upload_quota_gb" INTEGER,
    "icon_source" TEXT NOT NULL DEFAULT 'G',
    "icon_version" INTEGER NOT NULL DEFAULT 1,
    "logo_source" TEXT NOT NULL DEFAULT 'D',
    "logo_version" INTEGER NOT NULL DEFAULT 1,
    "night_logo_source" TEXT NOT NULL DEFAULT 'D',
    "night_logo_version" INTEGER NOT NULL DEFAULT 1,
    "new_stream_announcements_stream_id" INTEGER,
    "signup_announcements_stream_id" INTEGER,
    "zulip_update_announcements_stream_id" INTEGER,
    "moderation_request_channel_id" INTEGER,
    "can_access_all_users_group_id" INTEGER,
    "can_add_custom_emoji_group_id" INTEGER,
    "can_add_subscribers_group_id" INTEGER,
    "can_create_bots_group_id" INTEGER,
    "can_create_groups_id" INTEGER,
    "can_create_private_channel_group_id" INTEGER,
    "can_create_public_channel_group_id" INTEGER,
    "can_create_web_public_channel_group_id" INTEGER,
    "can_create_write_only_bots_group_id" INTEGER,
    "can_delete_any_message_group_id" INTEGER,
    "can_delete_own_message_group_id" INTEGER,
    "can_invite_users_group_id" INTEGER,
    "can_manage_all_groups_id" INTEGER,
    "can_manage_billing_group_id" INTEGER,
    "can_mention_many_users_group_id" INTEGER,
    "can_move_messages_between_channels_group_id" INTEGER,
    "can_move_messages_between_topics_group_id" INTEGER,
    "can_resolve_topics_group_id" INTEGER,
    "can_set_delete_message_policy_group_id" INTEGER,
    "can_set_topics_policy_group_id" INTEGER,
    "can_summarize_topics_group_id" INTEGER,
    "create_multiuse_invite_group_id" INTEGER,
    "direct_message_initiator_group_id" INTEGER,
    "direct_message_permission_group_id" INTEGER,
    CONSTRAINT "realms_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "realm_domains" (
    "id" SERIAL NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "domain" TEXT NOT NULL,
    "allow_subdomains" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "realm_domains_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "realm_user_defaults" (
    "id" SERIAL NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "twenty_four_hour_time" BOOLEAN NOT NULL DEFAULT false,
    "web_mark_read_on_scroll_policy" INTEGER NOT NULL DEFAULT 1,
    "web_channel_default_view" INTEGER NOT NULL DEFAULT 1,
    "starred_message_counts" BOOLEAN NOT NULL DEFAULT true,
    "receives_typing_notifications" BOOLEAN NOT NULL DEFAULT true,
    "web_suggest_update_timezone" BOOLEAN NOT NULL DEFAULT true,
    "fluid_layout_width" BOOLEAN NOT NULL DEFAULT false,
    "high_contrast_mode" BOOLEAN NOT NULL DEFAULT false,
    "web_font_size_px" INTEGER NOT NULL DEFAULT 16,
    "web_line_height_percent" INTEGER NOT NULL DEFAULT 140,
    "color_scheme" INTEGER NOT NULL DEFAULT 1,
    "enable_drafts_synchronization" BOOLEAN NOT NULL DEFAULT true,
    "translate_emoticons" BOOLEAN NOT NULL DEFAULT false,
    "display_emoji_reaction_users" BOOLEAN NOT NULL DEFAULT true,
    "default_language" TEXT NOT NULL DEFAULT 'en',
    "web_home_view" TEXT NOT NULL DEFAULT 'inbox',
    "web_escape_navigates_to_home_view" BOOLEAN NOT NULL DEFAULT true,
    "left_side_userlist" BOOLEAN NOT NULL DEFAULT false,
    "emojiset" TEXT NOT NULL DEFAULT 'google',
    "demote_inactive_streams" INTEGER NOT NULL DEFAULT 1,
    "user_list_style" INTEGER NOT NULL DEFAULT 2,
    "web_animate_image_previews" TEXT NOT NULL DEFAULT 'on_hover',
    "web_stream_unreads_count_display_policy" INTEGER NOT NULL DEFAULT 2,
    "web_navigate_to_sent_message" BOOLEAN NOT NULL DEFAULT true,
    "hide_ai_features" BOOLEAN NOT NULL DEFAULT false,
    "enter_sends" BOOLEAN NOT NULL DEFAULT false,
    "enable_stream_desktop_notifications" BOOLEAN NOT NULL DEFAULT false,
    "enable_stream_email_notifications" BOOLEAN NOT NULL DEFAULT false,
    "enable_stream_push_notifications" BOOLEAN NOT NULL DEFAULT false,
    "enable_stream_audible_notifications" BOOLEAN NOT NULL DEFAULT false,
    "notification_sound" TEXT NOT NULL DEFAULT 'zulip',
    "enable_desktop_notifications" BOOLEAN NOT NULL DEFAULT true,
    "enable_sounds" BOOLEAN NOT NULL DEFAULT true,
    "email_notifications_batching_period_seconds" INTEGER NOT NULL DEFAULT 120,
    "enable_offline_email_notifications" BOOLEAN NOT NULL DEFAULT true,
    "enable_offline_push_notifications" BOOLEAN NOT NULL DEFAULT true,
    "enable_online_push_notifications" BOOLEAN NOT NULL DEFAULT true,
    "enable_followed_topic_desktop_notifications" BOOLEAN NOT NULL DEFAULT true,
    "enable_followed_topic_email_notifications" BOOLEAN NOT NULL DEFAULT true,
    "enable_followed_topic_push_notifications" BOOLEAN NOT NULL DEFAULT true,
    "enable_followed_topic_audible_notifications" BOOLEAN NOT NULL DEFAULT true,
    "enable_followed_topic_wildcard_mentions_notify" BOOLEAN NOT NULL DEFAULT true,
    "enable_digest_emails" BOOLEAN NOT NULL DEFAULT true,
    "enable_login_emails" BOOLEAN NOT NULL DEFAULT true,
    "enable_marketing_emails" BOOLEAN NOT NULL DEFAULT true,
    "message_content_in_email_notifications" BOOLEAN NOT NULL DEFAULT true,
    "pm_content_in_desktop_notifications" BOOLEAN NOT NULL DEFAULT true,
    "wildcard_mentions_notify" BOOLEAN NOT NULL DEFAULT true,
    "desktop_icon_count_display" INTEGER NOT NULL DEFAULT 1,
    "realm_name_in_email_notifications_policy" INTEGER NOT NULL DEFAULT 1,
    "automatically_follow_topics_policy" INTEGER NOT NULL DEFAULT 3,
    "automatically_unmute_topics_in_muted_streams_policy" INTEGER NOT NULL DEFAULT 3,
    "automatically_follow_topics_where_mentioned" BOOLEAN NOT NULL DEFAULT true,
    "resolved_topic_notice_auto_read_policy" TEXT NOT NULL DEFAULT 'except_followed',
    "presence_enabled" BOOLEAN NOT NULL DEFAULT true,
    "send_stream_typing_notifications" BOOLEAN NOT NULL DEFAULT true,
    "send_private_typing_notifications" BOOLEAN NOT NULL DEFAULT true,
    "send_read_receipts" BOOLEAN NOT NULL DEFAULT true,
    "allow_private_data_export" BOOLEAN NOT NULL DEFAULT false,
    "email_address_visibility" INTEGER NOT NULL DEFAULT 1,
    CONSTRAINT "realm_user_defaults_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "realm_filters" (
    "id" SERIAL NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "pattern" TEXT NOT NULL,
    "url_template" TEXT NOT NULL,
    "order" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "realm_filters_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "realm_playgrounds" (
    "id" SERIAL NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "pygments_language" TEXT NOT NULL,
    "url_template" TEXT NOT NULL,
    CONSTRAINT "realm_playgrounds_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "realm_emoji" (
    "id" SERIAL NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "file_name" TEXT,
    "author_id" INTEGER,
    "deactivated" BOOLEAN NOT NULL DEFAULT false,
    "is_animated" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "realm_emoji_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "custom_profile_fields" (
    "id" SERIAL NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "hint" TEXT NOT NULL DEFAULT '',
    "type" INTEGER NOT NULL,
    "field_data" TEXT NOT NULL DEFAULT '',
    "order" INTEGER NOT NULL DEFAULT 0,
    "display_in_profile_summary" BOOLEAN NOT NULL DEFAULT false,
    "required" BOOLEAN NOT NULL DEFAULT false,
    "editable_by_user" BOOLEAN NOT NULL DEFAULT true,
    CONSTRAINT "custom_profile_fields_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "custom_profile_field_values" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "field_id" INTEGER NOT NULL,
    "value" TEXT NOT NULL,
    "rendered_value" TEXT,
    CONSTRAINT "custom_profile_field_values_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "realm_audit_logs" (
    "id" SERIAL NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "acting_user_id" INTEGER,
    "modified_user_id" INTEGER,
    "modified_stream_id" INTEGER,
    "modified_user_group_id" INTEGER,
    "event_type" INTEGER NOT NULL,
    "event_time" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "extra_data" JSONB,
    CONSTRAINT "realm_audit_logs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "users" (
    "id" SERIAL NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "email" TEXT NOT NULL,
    "delivery_email" TEXT NOT NULL,
    "full_name" TEXT NOT NULL,
    "role" INTEGER NOT NULL DEFAULT 400,
    "is_bot" BOOLEAN NOT NULL DEFAULT false,
    "bot_type" INTEGER,
    "bot_owner_id" INTEGER,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "is_mirror_dummy" BOOLEAN NOT NULL DEFAULT false,
    "password_hash" TEXT,
    "api_key_hash" TEXT NOT NULL,
    "api_key_ciphertext" TEXT NOT NULL,
    "avatar_source" TEXT NOT NULL DEFAULT 'G',
    "avatar_version" INTEGER NOT NULL DEFAULT 1,
    "timezone" TEXT NOT NULL DEFAULT '',
    "date_joined" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_login" TIMESTAMPTZ(6),
    "recipient_id" INTEGER,
    "default_sending_stream_id" INTEGER,
    "default_events_register_stream_id" INTEGER,
    "default_all_public_streams" BOOLEAN NOT NULL DEFAULT false,
    "can_change_user_emails" BOOLEAN NOT NULL DEFAULT false,
    "can_create_users" BOOLEAN NOT NULL DEFAULT false,
    "can_forge_sender" BOOLEAN NOT NULL DEFAULT false,
    "twenty_four_hour_time" BOOLEAN NOT NULL DEFAULT false,
    "web_mark_read_on_scroll_policy" INTEGER NOT NULL DEFAULT 1,
    "web_channel_default_view" INTEGER NOT NULL DEFAULT 1,
    "starred_message_counts" BOOLEAN NOT NULL DEFAULT true,
    "receives_typing_notifications" BOOLEAN NOT NULL DEFAULT true,
    "web_suggest_update_timezone" BOOLEAN NOT NULL DEFAULT true,
    "fluid_layout_width" BOOLEAN NOT NULL DEFAULT false,
    "high_contrast_mode" BOOLEAN NOT NULL DEFAULT false,
    "web_font_size_px" INTEGER NOT NULL DEFAULT 16,
    "web_line_height_percent" INTEGER NOT NULL DEFAULT 140,
    "color_scheme" INTEGER NOT NULL DEFAULT 1,
    "enable_drafts_synchronization" BOOLEAN NOT NULL DEFAULT true,
    "translate_emoticons" BOOLEAN NOT NULL DEFAULT false,
    "display_emoji_reaction_users" BOOLEAN NOT NULL DEFAULT true,
    "default_language" TEXT NOT NULL DEFAULT 'en',
    "web_home_view" TEXT NOT NULL DEFAULT 'inbox',
    "web_escape_navigates_to_home_view" BOOLEAN NOT NULL DEFAULT true,
    "left_side_userlist" BOOLEAN NOT NULL DEFAULT false,
    "emojiset" TEXT NOT NULL DEFAULT 'google',
    "demote_inactive_streams" INTEGER NOT NULL DEFAULT 1,
    "user_list_style" INTEGER NOT NULL DEFAULT 2,
    "web_animate_image_previews" TEXT NOT NULL DEFAULT 'on_hover',
    "web_stream_unreads_count_display_policy" INTEGER NOT NULL DEFAULT 2,
    "web_navigate_to_sent_message" BOOLEAN NOT NULL DEFAULT true,
    "hide_ai_features" BOOLEAN NOT NULL DEFAULT false,
    "enter_sends" BOOLEAN NOT NULL DEFAULT false,
    "enable_stream_desktop_notifications" BOOLEAN NOT NULL DEFAULT false,
    "enable_stream_email_notifications" BOOLEAN NOT NULL DEFAULT false,
    "enable_stream_push_notifications" BOOLEAN NOT NULL DEFAULT false,
    "enable_stream_audible_notifications" BOOLEAN NOT NULL DEFAULT false,
    "notification_sound" TEXT NOT NULL DEFAULT 'zulip',
    "enable_desktop_notifications" BOOLEAN NOT NULL DEFAULT true,
    "enable_sounds" BOOLEAN NOT NULL DEFAULT true,
    "email_notifications_batching_period_seconds" INTEGER NOT NULL DEFAULT 120,
    "enable_offline_email_notifications" BOOLEAN NOT NULL DEFAULT true,
    "enable_offline_push_notifications" BOOLEAN NOT NULL DEFAULT true,
    "enable_online_push_notifications" BOOLEAN NOT NULL DEFAULT true,
    "enable_followed_topic_desktop_notifications" BOOLEAN NOT NULL DEFAULT true,
    "enable_followed_topic_email_notifications" BOOLEAN NOT NULL DEFAULT true,
    "enable_followed_topic_push_notifications" BOOLEAN NOT NULL DEFAULT true,
    "enable_followed_topic_audible_notifications" BOOLEAN NOT NULL DEFAULT true,
    "enable_followed_topic_wildcard_mentions_notify" BOOLEAN NOT NULL DEFAULT true,
    "enable_digest_emails" BOOLEAN NOT NULL DEFAULT true,
    "enable_login_emails" BOOLEAN NOT NULL DEFAULT true,
    "enable_marketing_emails" BOOLEAN NOT NULL DEFAULT true,
    "message_content_in_email_notifications" BOOLEAN NOT NULL DEFAULT true,
    "pm_content_in_desktop_notifications" BOOLEAN NOT NULL DEFAULT true,
    "wildcard_mentions_notify" BOOLEAN NOT NULL DEFAULT true,
    "desktop_icon_count_display" INTEGER NOT NULL DEFAULT 1,
    "realm_name_in_email_notifications_policy" INTEGER NOT NULL DEFAULT 1,
    "automatically_follow_topics_policy" INTEGER NOT NULL DEFAULT 3,
    "automatically_unmute_topics_in_muted_streams_policy" INTEGER NOT NULL DEFAULT 3,
    "automatically_follow_topics_where_mentioned" BOOLEAN NOT NULL DEFAULT true,
    "resolved_topic_notice_auto_read_policy" TEXT NOT NULL DEFAULT 'except_followed',
    "presence_enabled" BOOLEAN NOT NULL DEFAULT true,
    "send_stream_typing_notifications" BOOLEAN NOT NULL DEFAULT true,
    "send_private_typing_notifications" BOOLEAN NOT NULL DEFAULT true,
    "send_read_receipts" BOOLEAN NOT NULL DEFAULT true,
    "allow_private_data_export" BOOLEAN NOT NULL DEFAULT false,
    "email_address_visibility" INTEGER NOT NULL DEFAULT 1,
    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "email_change_statuses" (
    "id" SERIAL NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,
    "old_email" TEXT NOT NULL,
    "new_email" TEXT NOT NULL,
    "confirmation_key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(6),
    "status" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "email_change_statuses_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "user_presences" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "last_active_time" TIMESTAMPTZ(6),
    "last_connected_time" TIMESTAMPTZ(6),
    "last_update_id" BIGINT NOT NULL DEFAULT 0,
    CONSTRAINT "user_presences_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "presence_sequences" (
    "id" SERIAL NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "last_update_id" BIGINT NOT NULL DEFAULT 0,
    CONSTRAINT "presence_sequences_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "user_statuses" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "status_text" TEXT NOT NULL DEFAULT '',
    "emoji_name" TEXT NOT NULL DEFAULT '',
    "emoji_code" TEXT NOT NULL DEFAULT '',
    "reaction_type" TEXT NOT NULL DEFAULT 'unicode_emoji',
    "timestamp" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "user_statuses_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_words" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "word" TEXT NOT NULL,
    CONSTRAINT "alert_words_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "muted_users" (
    "id" SERIAL NOT NULL,
    "user_profile_id" INTEGER NOT NULL,
    "muted_user_id" INTEGER NOT NULL,
    "date_muted" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "muted_users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "push_device_tokens" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "kind" INTEGER NOT NULL,
    "token" TEXT NOT NULL,
    "app_id" TEXT,
    "last_updated" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "push_device_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "services" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "base_url" TEXT NOT NULL,
    "token" TEXT NOT NULL,
    "interface" INTEGER NOT NULL DEFAULT 1,
    CONSTRAINT "services_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "bot_storage_data" (
    "id" SERIAL NOT NULL,
    "bot_id" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    CONSTRAINT "bot_storage_data_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "bot_config_data" (
    "id" SERIAL NOT NULL,
    "bot_id" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    CONSTRAINT "bot_config_data_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "saved_snippets" (
    "id" SERIAL NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "date_created" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "saved_snippets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "invitations" (
    "id" SERIAL NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "email" TEXT NOT NULL,
    "referred_by_id" INTEGER NOT NULL,
    "invited_as" INTEGER NOT NULL DEFAULT 400,
    "status" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(6),
    "notify_referrer_on_join" BOOLEAN NOT NULL DEFAULT true,
    "include_realm_default_subscriptions" BOOLEAN NOT NULL DEFAULT false,
    "confirmation_key" TEXT NOT NULL,
    CONSTRAINT "invitations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "invitation_streams" (
    "invitation_id" INTEGER NOT NULL,
    "stream_id" INTEGER NOT NULL,
    CONSTRAINT "invitation_streams_pkey" PRIMARY KEY ("invitation_id", "stream_id")
);

-- CreateTable
CREATE TABLE "invitation_groups" (
    "invitation_id" INTEGER NOT NULL,
    "user_group_id" INTEGER NOT NULL,
    CONSTRAINT "invitation_groups_pkey" PRIMARY KEY ("invitation_id", "user_group_id")
);

-- CreateTable
CREATE TABLE "multiuse_invites" (
    "id" SERIAL NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "referred_by_id" INTEGER NOT NULL,
    "invited_as" INTEGER NOT NULL DEFAULT 400,
    "status" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(6),
    "include_realm_default_subscriptions" BOOLEAN NOT NULL DEFAULT false,
    "confirmation_key" TEXT NOT NULL,
    CONSTRAINT "multiuse_invites_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "multiuse_invite_streams" (
    "multiuse_invite_id" INTEGER NOT NULL,
    "stream_id" INTEGER NOT NULL,
    CONSTRAINT "multiuse_invite_streams_pkey" PRIMARY KEY ("multiuse_invite_id", "stream_id")
);

-- CreateTable
CREATE TABLE "multiuse_invite_groups" (
    "multiuse_invite_id" INTEGER NOT NULL,
    "user_group_id" INTEGER NOT NULL,
    CONSTRAINT "multiuse_invite_groups_pkey" PRIMARY KEY ("multiuse_invite_id", "user_group_id")
);

-- CreateTable
CREATE TABLE "user_groups" (
    "id" SERIAL NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "name" TEXT,
    "description" TEXT NOT NULL DEFAULT '',
    "named" BOOLEAN NOT NULL DEFAULT true,
    "is_system_group" BOOLEAN NOT NULL DEFAULT false,
    "deactivated" BOOLEAN NOT NULL DEFAULT false,
    "date_created" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "creator_id" INTEGER,
    "can_add_members_group_id" INTEGER,
    "can_join_group_id" INTEGER,
    "can_leave_group_id" INTEGER,
    "can_manage_group_id" INTEGER,
    "can_mention_group_id" INTEGER,
    "can_remove_members_group_id" INTEGER,
    CONSTRAINT "user_groups_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "user_group_memberships" (
    "user_group_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,
    CONSTRAINT "user_group_memberships_pkey" PRIMARY KEY ("user_group_id", "user_id")
);

-- CreateTable
CREATE TABLE "group_group_memberships" (
    "supergroup_id" INTEGER NOT NULL,
    "subgroup_id" INTEGER NOT NULL,
    CONSTRAINT "group_group_memberships_pkey" PRIMARY KEY ("supergroup_id", "subgroup_id")
);

-- CreateTable
CREATE TABLE "recipients" (
    "id" SERIAL NOT NULL,
    "type" INTEGER NOT NULL,
    "type_id" INTEGER NOT NULL,
    CONSTRAINT "recipients_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "streams" (
    "id" SERIAL NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "rendered_description" TEXT NOT NULL DEFAULT '',
    "date_created" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "creator_id" INTEGER,
    "invite_only" BOOLEAN NOT NULL DEFAULT false,
    "is_web_public" BOOLEAN NOT NULL DEFAULT false,
    "history_public_to_subscribers" BOOLEAN NOT NULL DEFAULT true,
    "message_retention_days" INTEGER,
    "is_archived" BOOLEAN NOT NULL DEFAULT false,
    "recipient_id" INTEGER,
    "first_message_id" INTEGER,
    "is_recently_active" BOOLEAN NOT NULL DEFAULT true,
    "can_add_subscribers_group_id" INTEGER NOT NULL,
    "can_administer_channel_group_id" INTEGER NOT NULL,
    "can_remove_subscribers_group_id" INTEGER NOT NULL,
    "can_send_message_group_id" INTEGER NOT NULL,
    "can_subscribe_group_id" INTEGER NOT NULL,
    CONSTRAINT "streams_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "default_streams" (
    "id" SERIAL NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "stream_id" INTEGER NOT NULL,
    CONSTRAINT "default_streams_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "default_stream_groups" (
    "id" SERIAL NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    CONSTRAINT "default_stream_groups_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "default_stream_group_streams" (
    "default_stream_group_id" INTEGER NOT NULL,
    "stream_id" INTEGER NOT NULL,
    CONSTRAINT "default_stream_group_streams_pkey" PRIMARY KEY ("default_stream_group_id", "stream_id")
);

-- CreateTable
CREATE TABLE "direct_message_groups" (
    "id" SERIAL NOT NULL,
    "realm_id" INTEGER,
    "huddle_hash" TEXT NOT NULL,
    "group_size" INTEGER NOT NULL,
    "recipient_id" INTEGER,
    CONSTRAINT "direct_message_groups_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "subscriptions" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "recipient_id" INTEGER NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "is_user_active" BOOLEAN NOT NULL DEFAULT true,
    "color" TEXT NOT NULL DEFAULT '#c2c2c2',
    "is_muted" BOOLEAN NOT NULL DEFAULT false,
    "pin_to_top" BOOLEAN NOT NULL DEFAULT false,
    "desktop_notifications" BOOLEAN,
    "audible_notifications" BOOLEAN,
    "push_notifications" BOOLEAN,
    "email_notifications" BOOLEAN,
    "wildcard_mentions_notify" BOOLEAN,
    CONSTRAINT "subscriptions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "user_topics" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "stream_id" INTEGER NOT NULL,
    "recipient_id" INTEGER NOT NULL,
    "topic_name" TEXT NOT NULL,
    "last_updated" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "visibility_policy" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "user_topics_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "messages" (
    "id" SERIAL NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "sender_id" INTEGER NOT NULL,
    "recipient_id" INTEGER NOT NULL,
    "subject" TEXT NOT NULL DEFAULT '',
    "content" TEXT NOT NULL,
    "rendered_content" TEXT NOT NULL,
    "rendered_content_version" INTEGER,
    "date_sent" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sending_client_name" TEXT NOT NULL DEFAULT '',
    "last_edit_time" TIMESTAMPTZ(6),
    "last_moved_time" TIMESTAMPTZ(6),
    "edit_history" JSONB,
    "has_attachment" BOOLEAN NOT NULL DEFAULT false,
    "has_image" BOOLEAN NOT NULL DEFAULT false,
    "has_link" BOOLEAN NOT NULL DEFAULT false,
    "is_channel_message" BOOLEAN NOT NULL DEFAULT true,
    "search_tsv" tsvector,
    CONSTRAINT "messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "user_messages" (
    "id" BIGSERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "message_id" INTEGER NOT NULL,
    "flags" BIGINT NOT NULL DEFAULT 0,
    CONSTRAINT "user_messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "reactions" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "message_id" INTEGER NOT NULL,
    "emoji_name" TEXT NOT NULL,
    "emoji_code" TEXT NOT NULL,
    "reaction_type" TEXT NOT NULL DEFAULT 'unicode_emoji',
    CONSTRAINT "reactions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "submessages" (
    "id" SERIAL NOT NULL,
    "message_id" INTEGER NOT NULL,
    "sender_id" INTEGER NOT NULL,
    "msg_type" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    CONSTRAINT "submessages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "scheduled_messages" (
    "id" SERIAL NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "sender_id" INTEGER NOT NULL,
    "recipient_id" INTEGER NOT NULL,
    "subject" TEXT NOT NULL DEFAULT '',
    "content" TEXT NOT NULL,
    "rendered_content" TEXT NOT NULL,
    "scheduled_timestamp" TIMESTAMPTZ(6) NOT NULL,
    "read_by_sender" BOOLEAN,
    "delivered" BOOLEAN NOT NULL DEFAULT false,
    "delivered_message_id" INTEGER,
    "failed" BOOLEAN NOT NULL DEFAULT false,
    "failure_message" TEXT,
    "has_attachment" BOOLEAN NOT NULL DEFAULT false,
    "sending_client_name" TEXT NOT NULL DEFAULT '',
    "delivery_type" INTEGER NOT NULL DEFAULT 1,
    CONSTRAINT "scheduled_messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "drafts" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "recipient_id" INTEGER,
    "type" TEXT NOT NULL DEFAULT '',
    "to_json" JSONB NOT NULL DEFAULT '[]',
    "topic" TEXT NOT NULL DEFAULT '',
    "content" TEXT NOT NULL,
    "last_edit_time" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "drafts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "attachments" (
    "id" SERIAL NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "owner_id" INTEGER NOT NULL,
    "path_id" TEXT NOT NULL,
    "file_name" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "content_type" TEXT,
    "create_time" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "is_realm_public" BOOLEAN,
    "is_web_public" BOOLEAN,
    CONSTRAINT "attachments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "attachment_messages" (
    "attachment_id" INTEGER NOT NULL,
    "message_id" INTEGER NOT NULL,
    CONSTRAINT "attachment_messages_pkey" PRIMARY KEY ("attachment_id", "message_id")
);

-- CreateTable
CREATE TABLE "attachment_scheduled_messages" (
    "attachment_id" INTEGER NOT NULL,
    "scheduled_message_id" INTEGER NOT NULL,
    CONSTRAINT "attachment_scheduled_messages_pkey" PRIMARY KEY ("attachment_id", "scheduled_message_id")
);

-- CreateTable
CREATE TABLE "outbox_events" (
    "id" BIGSERIAL NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "event_json" JSONB NOT NULL,
    "users_json" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "published_at" TIMESTAMPTZ(6),
    CONSTRAINT "outbox_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "realms_string_id_key" ON "realms"("string_id");

-- CreateIndex
CREATE UNIQUE INDEX "realm_domains_realm_id_domain_key" ON "realm_domains"("realm_id", "domain");

-- CreateIndex
CREATE UNIQUE INDEX "realm_user_defaults_realm_id_key" ON "realm_user_defaults"("realm_id");

-- CreateIndex
CREATE UNIQUE INDEX "realm_filters_realm_id_pattern_key" ON "realm_filters"("realm_id", "pattern");

-- CreateIndex
CREATE UNIQUE INDEX "realm_playgrounds_realm_id_pygments_language_name_key" ON "realm_playgrounds"("realm_id", "pygments_language", "name");

-- CreateIndex
CREATE INDEX "realm_emoji_realm_id_name_idx" ON "realm_emoji"("realm_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "custom_profile_fields_realm_id_name_key" ON "custom_profile_fields"("realm_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "custom_profile_field_values_user_id_field_id_key" ON "custom_profile_field_values"("user_id", "field_id");

-- CreateIndex
CREATE INDEX "custom_profile_field_values_field_id_idx" ON "custom_profile_field_values"("field_id");

-- CreateIndex
CREATE INDEX "realm_audit_logs_realm_id_event_time_idx" ON "realm_audit_logs"("realm_id", "event_time");

-- CreateIndex
CREATE INDEX "realm_audit_logs_modified_user_id_idx" ON "realm_audit_logs"("modified_user_id");

-- CreateIndex
CREATE UNIQUE INDEX "users_api_key_hash_key" ON "users"("api_key_hash");

-- CreateIndex
CREATE UNIQUE INDEX "users_recipient_id_key" ON "users"("recipient_id");

-- CreateIndex
CREATE UNIQUE INDEX "users_realm_id_email_key" ON "users"("realm_id", "email");

-- CreateIndex
CREATE INDEX "users_realm_id_delivery_email_idx" ON "users"("realm_id", "delivery_email");

-- CreateIndex
CREATE INDEX "users_bot_owner_id_idx" ON "users"("bot_owner_id");

-- CreateIndex
CREATE UNIQUE INDEX "email_change_statuses_confirmation_key_key" ON "email_change_statuses"("confirmation_key");

-- CreateIndex
CREATE INDEX "email_change_statuses_user_id_idx" ON "email_change_statuses"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "user_presences_user_id_key" ON "user_presences"("user_id");

-- CreateIndex
CREATE INDEX "user_presences_realm_id_last_update_id_idx" ON "user_presences"("realm_id", "last_update_id");

-- CreateIndex
CREATE UNIQUE INDEX "presence_sequences_realm_id_key" ON "presence_sequences"("realm_id");

-- CreateIndex
CREATE UNIQUE INDEX "user_statuses_user_id_key" ON "user_statuses"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "alert_words_user_id_word_key" ON "alert_words"("user_id", "word");

-- CreateIndex
CREATE UNIQUE INDEX "muted_users_user_profile_id_muted_user_id_key" ON "muted_users"("user_profile_id", "muted_user_id");

-- CreateIndex
CREATE INDEX "muted_users_muted_user_id_idx" ON "muted_users"("muted_user_id");

-- CreateIndex
CREATE UNIQUE INDEX "push_device_tokens_user_id_kind_token_key" ON "push_device_tokens"("user_id", "kind", "token");

-- CreateIndex
CREATE INDEX "services_user_id_idx" ON "services"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "bot_storage_data_bot_id_key_key" ON "bot_storage_data"("bot_id", "key");

-- CreateIndex
CREATE UNIQUE INDEX "bot_config_data_bot_id_key_key" ON "bot_config_data"("bot_id", "key");

-- CreateIndex
CREATE INDEX "saved_snippets_user_id_idx" ON "saved_snippets"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "invitations_confirmation_key_key" ON "invitations"("confirmation_key");

-- CreateIndex
CREATE INDEX "invitations_realm_id_email_idx" ON "invitations"("realm_id", "email");

-- CreateIndex
CREATE INDEX "invitation_streams_stream_id_idx" ON "invitation_streams"("stream_id");

-- CreateIndex
CREATE INDEX "invitation_groups_user_group_id_idx" ON "invitation_groups"("user_group_id");

-- CreateIndex
CREATE UNIQUE INDEX "multiuse_invites_confirmation_key_key" ON "multiuse_invites"("confirmation_key");

-- CreateIndex
CREATE INDEX "multiuse_invites_realm_id_idx" ON "multiuse_invites"("realm_id");

-- CreateIndex
CREATE INDEX "multiuse_invite_streams_stream_id_idx" ON "multiuse_invite_streams"("stream_id");

-- CreateIndex
CREATE INDEX "multiuse_invite_groups_user_group_id_idx" ON "multiuse_invite_groups"("user_group_id");

-- CreateIndex
CREATE UNIQUE INDEX "user_groups_realm_id_name_key" ON "user_groups"("realm_id", "name");

-- CreateIndex
CREATE INDEX "user_group_memberships_user_id_idx" ON "user_group_memberships"("user_id");

-- CreateIndex
CREATE INDEX "group_group_memberships_subgroup_id_idx" ON "group_group_memberships"("subgroup_id");

-- CreateIndex
CREATE UNIQUE INDEX "recipients_type_type_id_key" ON "recipients"("type", "type_id");

-- CreateIndex
CREATE UNIQUE INDEX "streams_recipient_id_key" ON "streams"("recipient_id");

-- CreateIndex
CREATE UNIQUE INDEX "streams_realm_id_name_key" ON "streams"("realm_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "default_streams_stream_id_key" ON "default_streams"("stream_id");

-- CreateIndex
CREATE INDEX "default_streams_realm_id_idx" ON "default_streams"("realm_id");

-- CreateIndex
CREATE UNIQUE INDEX "default_stream_groups_realm_id_name_key" ON "default_stream_groups"("realm_id", "name");

-- CreateIndex
CREATE INDEX "default_stream_group_streams_stream_id_idx" ON "default_stream_group_streams"("stream_id");

-- CreateIndex
CREATE UNIQUE INDEX "direct_message_groups_huddle_hash_key" ON "direct_message_groups"("huddle_hash");

-- CreateIndex
CREATE UNIQUE INDEX "direct_message_groups_recipient_id_key" ON "direct_message_groups"("recipient_id");

-- CreateIndex
CREATE UNIQUE INDEX "subscriptions_user_id_recipient_id_key" ON "subscriptions"("user_id", "recipient_id");

-- CreateIndex
CREATE INDEX "subscriptions_recipient_id_idx" ON "subscriptions"("recipient_id");

-- CreateIndex
CREATE INDEX "messages_realm_id_id_idx" ON "messages"("realm_id", "id");

-- CreateIndex
CREATE INDEX "messages_sender_id_id_idx" ON "messages"("sender_id", "id");

-- CreateIndex
CREATE INDEX "messages_recipient_id_id_idx" ON "messages"("recipient_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "user_messages_user_id_message_id_key" ON "user_messages"("user_id", "message_id");

-- CreateIndex
CREATE INDEX "user_messages_message_id_idx" ON "user_messages"("message_id");

-- CreateIndex
CREATE UNIQUE INDEX "reactions_user_id_message_id_reaction_type_emoji_code_key" ON "reactions"("user_id", "message_id", "reaction_type", "emoji_code");

-- CreateIndex
CREATE INDEX "reactions_message_id_idx" ON "reactions"("message_id");

-- CreateIndex
CREATE INDEX "submessages_message_id_idx" ON "submessages"("message_id");

-- CreateIndex
CREATE INDEX "scheduled_messages_sender_id_delivered_idx" ON "scheduled_messages"("sender_id", "delivered");

-- CreateIndex
CREATE INDEX "scheduled_messages_delivered_failed_scheduled_timestamp_idx" ON "scheduled_messages"("delivered", "failed", "scheduled_timestamp");

-- CreateIndex
CREATE INDEX "drafts_user_id_last_edit_time_idx" ON "drafts"("user_id", "last_edit_time");

-- CreateIndex
CREATE UNIQUE INDEX "attachments_path_id_key" ON "attachments"("path_id");

-- CreateIndex
CREATE INDEX "attachments_owner_id_idx" ON "attachments"("owner_id");

-- CreateIndex
CREATE INDEX "attachment_messages_message_id_idx" ON "attachment_messages"("message_id");

-- CreateIndex
CREATE INDEX "attachment_scheduled_messages_scheduled_message_id_idx" ON "attachment_scheduled_messages"("scheduled_message_id");

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_new_stream_announcements_stream_id_fkey" FOREIGN KEY ("new_stream_announcements_stream_id") REFERENCES "streams"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_signup_announcements_stream_id_fkey" FOREIGN KEY ("signup_announcements_stream_id") REFERENCES "streams"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_zulip_update_announcements_stream_id_fkey" FOREIGN KEY ("zulip_update_announcements_stream_id") REFERENCES "streams"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_moderation_request_channel_id_fkey" FOREIGN KEY ("moderation_request_channel_id") REFERENCES "streams"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_can_access_all_users_group_id_fkey" FOREIGN KEY ("can_access_all_users_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_can_add_custom_emoji_group_id_fkey" FOREIGN KEY ("can_add_custom_emoji_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_can_add_subscribers_group_id_fkey" FOREIGN KEY ("can_add_subscribers_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_can_create_bots_group_id_fkey" FOREIGN KEY ("can_create_bots_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_can_create_groups_id_fkey" FOREIGN KEY ("can_create_groups_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_can_create_private_channel_group_id_fkey" FOREIGN KEY ("can_create_private_channel_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_can_create_public_channel_group_id_fkey" FOREIGN KEY ("can_create_public_channel_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_can_create_web_public_channel_group_id_fkey" FOREIGN KEY ("can_create_web_public_channel_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_can_create_write_only_bots_group_id_fkey" FOREIGN KEY ("can_create_write_only_bots_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_can_delete_any_message_group_id_fkey" FOREIGN KEY ("can_delete_any_message_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_can_delete_own_message_group_id_fkey" FOREIGN KEY ("can_delete_own_message_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_can_invite_users_group_id_fkey" FOREIGN KEY ("can_invite_users_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_can_manage_all_groups_id_fkey" FOREIGN KEY ("can_manage_all_groups_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_can_manage_billing_group_id_fkey" FOREIGN KEY ("can_manage_billing_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_can_mention_many_users_group_id_fkey" FOREIGN KEY ("can_mention_many_users_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_can_move_messages_between_channels_group_id_fkey" FOREIGN KEY ("can_move_messages_between_channels_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_can_move_messages_between_topics_group_id_fkey" FOREIGN KEY ("can_move_messages_between_topics_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_can_resolve_topics_group_id_fkey" FOREIGN KEY ("can_resolve_topics_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_can_set_delete_message_policy_group_id_fkey" FOREIGN KEY ("can_set_delete_message_policy_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_can_set_topics_policy_group_id_fkey" FOREIGN KEY ("can_set_topics_policy_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_can_summarize_topics_group_id_fkey" FOREIGN KEY ("can_summarize_topics_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_create_multiuse_invite_group_id_fkey" FOREIGN KEY ("create_multiuse_invite_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_direct_message_initiator_group_id_fkey" FOREIGN KEY ("direct_message_initiator_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realms" ADD CONSTRAINT "realms_direct_message_permission_group_id_fkey" FOREIGN KEY ("direct_message_permission_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realm_domains" ADD CONSTRAINT "realm_domains_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realm_user_defaults" ADD CONSTRAINT "realm_user_defaults_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realm_filters" ADD CONSTRAINT "realm_filters_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realm_playgrounds" ADD CONSTRAINT "realm_playgrounds_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realm_emoji" ADD CONSTRAINT "realm_emoji_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realm_emoji" ADD CONSTRAINT "realm_emoji_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "custom_profile_fields" ADD CONSTRAINT "custom_profile_fields_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "custom_profile_field_values" ADD CONSTRAINT "custom_profile_field_values_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "custom_profile_field_values" ADD CONSTRAINT "custom_profile_field_values_field_id_fkey" FOREIGN KEY ("field_id") REFERENCES "custom_profile_fields"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realm_audit_logs" ADD CONSTRAINT "realm_audit_logs_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realm_audit_logs" ADD CONSTRAINT "realm_audit_logs_acting_user_id_fkey" FOREIGN KEY ("acting_user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realm_audit_logs" ADD CONSTRAINT "realm_audit_logs_modified_user_id_fkey" FOREIGN KEY ("modified_user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realm_audit_logs" ADD CONSTRAINT "realm_audit_logs_modified_stream_id_fkey" FOREIGN KEY ("modified_stream_id") REFERENCES "streams"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "realm_audit_logs" ADD CONSTRAINT "realm_audit_logs_modified_user_group_id_fkey" FOREIGN KEY ("modified_user_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "users" ADD CONSTRAINT "users_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "users" ADD CONSTRAINT "users_bot_owner_id_fkey" FOREIGN KEY ("bot_owner_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "users" ADD CONSTRAINT "users_recipient_id_fkey" FOREIGN KEY ("recipient_id") REFERENCES "recipients"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "users" ADD CONSTRAINT "users_default_sending_stream_id_fkey" FOREIGN KEY ("default_sending_stream_id") REFERENCES "streams"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "users" ADD CONSTRAINT "users_default_events_register_stream_id_fkey" FOREIGN KEY ("default_events_register_stream_id") REFERENCES "streams"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "email_change_statuses" ADD CONSTRAINT "email_change_statuses_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "email_change_statuses" ADD CONSTRAINT "email_change_statuses_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_presences" ADD CONSTRAINT "user_presences_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_presences" ADD CONSTRAINT "user_presences_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "presence_sequences" ADD CONSTRAINT "presence_sequences_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_statuses" ADD CONSTRAINT "user_statuses_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_words" ADD CONSTRAINT "alert_words_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "muted_users" ADD CONSTRAINT "muted_users_user_profile_id_fkey" FOREIGN KEY ("user_profile_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "muted_users" ADD CONSTRAINT "muted_users_muted_user_id_fkey" FOREIGN KEY ("muted_user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "push_device_tokens" ADD CONSTRAINT "push_device_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "services" ADD CONSTRAINT "services_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bot_storage_data" ADD CONSTRAINT "bot_storage_data_bot_id_fkey" FOREIGN KEY ("bot_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bot_config_data" ADD CONSTRAINT "bot_config_data_bot_id_fkey" FOREIGN KEY ("bot_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "saved_snippets" ADD CONSTRAINT "saved_snippets_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "saved_snippets" ADD CONSTRAINT "saved_snippets_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_referred_by_id_fkey" FOREIGN KEY ("referred_by_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "invitation_streams" ADD CONSTRAINT "invitation_streams_invitation_id_fkey" FOREIGN KEY ("invitation_id") REFERENCES "invitations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "invitation_streams" ADD CONSTRAINT "invitation_streams_stream_id_fkey" FOREIGN KEY ("stream_id") REFERENCES "streams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "invitation_groups" ADD CONSTRAINT "invitation_groups_invitation_id_fkey" FOREIGN KEY ("invitation_id") REFERENCES "invitations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "invitation_groups" ADD CONSTRAINT "invitation_groups_user_group_id_fkey" FOREIGN KEY ("user_group_id") REFERENCES "user_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "multiuse_invites" ADD CONSTRAINT "multiuse_invites_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "multiuse_invites" ADD CONSTRAINT "multiuse_invites_referred_by_id_fkey" FOREIGN KEY ("referred_by_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "multiuse_invite_streams" ADD CONSTRAINT "multiuse_invite_streams_multiuse_invite_id_fkey" FOREIGN KEY ("multiuse_invite_id") REFERENCES "multiuse_invites"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "multiuse_invite_streams" ADD CONSTRAINT "multiuse_invite_streams_stream_id_fkey" FOREIGN KEY ("stream_id") REFERENCES "streams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "multiuse_invite_groups" ADD CONSTRAINT "multiuse_invite_groups_multiuse_invite_id_fkey" FOREIGN KEY ("multiuse_invite_id") REFERENCES "multiuse_invites"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "multiuse_invite_groups" ADD CONSTRAINT "multiuse_invite_groups_user_group_id_fkey" FOREIGN KEY ("user_group_id") REFERENCES "user_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_groups" ADD CONSTRAINT "user_groups_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_groups" ADD CONSTRAINT "user_groups_creator_id_fkey" FOREIGN KEY ("creator_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_groups" ADD CONSTRAINT "user_groups_can_add_members_group_id_fkey" FOREIGN KEY ("can_add_members_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_groups" ADD CONSTRAINT "user_groups_can_join_group_id_fkey" FOREIGN KEY ("can_join_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_groups" ADD CONSTRAINT "user_groups_can_leave_group_id_fkey" FOREIGN KEY ("can_leave_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_groups" ADD CONSTRAINT "user_groups_can_manage_group_id_fkey" FOREIGN KEY ("can_manage_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_groups" ADD CONSTRAINT "user_groups_can_mention_group_id_fkey" FOREIGN KEY ("can_mention_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_groups" ADD CONSTRAINT "user_groups_can_remove_members_group_id_fkey" FOREIGN KEY ("can_remove_members_group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_group_memberships" ADD CONSTRAINT "user_group_memberships_user_group_id_fkey" FOREIGN KEY ("user_group_id") REFERENCES "user_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_group_memberships" ADD CONSTRAINT "user_group_memberships_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "group_group_memberships" ADD CONSTRAINT "group_group_memberships_supergroup_id_fkey" FOREIGN KEY ("supergroup_id") REFERENCES "user_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "group_group_memberships" ADD CONSTRAINT "group_group_memberships_subgroup_id_fkey" FOREIGN KEY ("subgroup_id") REFERENCES "user_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "streams" ADD CONSTRAINT "streams_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "streams" ADD CONSTRAINT "streams_creator_id_fkey" FOREIGN KEY ("creator_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "streams" ADD CONSTRAINT "streams_recipient_id_fkey" FOREIGN KEY ("recipient_id") REFERENCES "recipients"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "streams" ADD CONSTRAINT "streams_can_add_subscribers_group_id_fkey" FOREIGN KEY ("can_add_subscribers_group_id") REFERENCES "user_groups"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "streams" ADD CONSTRAINT "streams_can_administer_channel_group_id_fkey" FOREIGN KEY ("can_administer_channel_group_id") REFERENCES "user_groups"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "streams" ADD CONSTRAINT "streams_can_remove_subscribers_group_id_fkey" FOREIGN KEY ("can_remove_subscribers_group_id") REFERENCES "user_groups"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "streams" ADD CONSTRAINT "streams_can_send_message_group_id_fkey" FOREIGN KEY ("can_send_message_group_id") REFERENCES "user_groups"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "streams" ADD CONSTRAINT "streams_can_subscribe_group_id_fkey" FOREIGN KEY ("can_subscribe_group_id") REFERENCES "user_groups"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "default_streams" ADD CONSTRAINT "default_streams_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "default_streams" ADD CONSTRAINT "default_streams_stream_id_fkey" FOREIGN KEY ("stream_id") REFERENCES "streams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "default_stream_groups" ADD CONSTRAINT "default_stream_groups_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "default_stream_group_streams" ADD CONSTRAINT "default_stream_group_streams_default_stream_group_id_fkey" FOREIGN KEY ("default_stream_group_id") REFERENCES "default_stream_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "default_stream_group_streams" ADD CONSTRAINT "default_stream_group_streams_stream_id_fkey" FOREIGN KEY ("stream_id") REFERENCES "streams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "direct_message_groups" ADD CONSTRAINT "direct_message_groups_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "direct_message_groups" ADD CONSTRAINT "direct_message_groups_recipient_id_fkey" FOREIGN KEY ("recipient_id") REFERENCES "recipients"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_recipient_id_fkey" FOREIGN KEY ("recipient_id") REFERENCES "recipients"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_topics" ADD CONSTRAINT "user_topics_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_topics" ADD CONSTRAINT "user_topics_stream_id_fkey" FOREIGN KEY ("stream_id") REFERENCES "streams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_topics" ADD CONSTRAINT "user_topics_recipient_id_fkey" FOREIGN KEY ("recipient_id") REFERENCES "recipients"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "messages" ADD CONSTRAINT "messages_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "messages" ADD CONSTRAINT "messages_sender_id_fkey" FOREIGN KEY ("sender_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "messages" ADD CONSTRAINT "messages_recipient_id_fkey" FOREIGN KEY ("recipient_id") REFERENCES "recipients"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_messages" ADD CONSTRAINT "user_messages_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_messages" ADD CONSTRAINT "user_messages_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reactions" ADD CONSTRAINT "reactions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reactions" ADD CONSTRAINT "reactions_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "submessages" ADD CONSTRAINT "submessages_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "submessages" ADD CONSTRAINT "submessages_sender_id_fkey" FOREIGN KEY ("sender_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "scheduled_messages" ADD CONSTRAINT "scheduled_messages_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "scheduled_messages" ADD CONSTRAINT "scheduled_messages_sender_id_fkey" FOREIGN KEY ("sender_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "scheduled_messages" ADD CONSTRAINT "scheduled_messages_recipient_id_fkey" FOREIGN KEY ("recipient_id") REFERENCES "recipients"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "scheduled_messages" ADD CONSTRAINT "scheduled_messages_delivered_message_id_fkey" FOREIGN KEY ("delivered_message_id") REFERENCES "messages"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "drafts" ADD CONSTRAINT "drafts_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "drafts" ADD CONSTRAINT "drafts_recipient_id_fkey" FOREIGN KEY ("recipient_id") REFERENCES "recipients"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_owner_id_fkey" FOREIGN KEY ("owner_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "attachment_messages" ADD CONSTRAINT "attachment_messages_attachment_id_fkey" FOREIGN KEY ("attachment_id") REFERENCES "attachments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "attachment_messages" ADD CONSTRAINT "attachment_messages_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "attachment_scheduled_messages" ADD CONSTRAINT "attachment_scheduled_messages_attachment_id_fkey" FOREIGN KEY ("attachment_id") REFERENCES "attachments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "attachment_scheduled_messages" ADD CONSTRAINT "attachment_scheduled_messages_scheduled_message_id_fkey" FOREIGN KEY ("scheduled_message_id") REFERENCES "scheduled_messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "outbox_events" ADD CONSTRAINT "outbox_events_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written: indexes and a trigger Prisma's schema language cannot express.
-- Each is noted in the doc comment of its model in prisma/schema.prisma.

-- CreateIndex: channel names are unique per organization, case-insensitively.
CREATE UNIQUE INDEX "streams_realm_id_lower_name_key" ON "streams"("realm_id", lower("name"));

-- CreateIndex: real email addresses are unique per organization, case-insensitively.
CREATE UNIQUE INDEX "users_realm_id_lower_delivery_email_key" ON "users"("realm_id", lower("delivery_email"));

-- CreateIndex: active custom emoji names are unique per organization.
CREATE UNIQUE INDEX "realm_emoji_realm_id_name_active_key" ON "realm_emoji"("realm_id", "name") WHERE NOT "deactivated";

-- CreateIndex: topic narrows (topics compare case-insensitively).
CREATE INDEX "messages_recipient_id_lower_subject_id_idx" ON "messages"("recipient_id", lower("subject"), "id");

-- CreateIndex: full-text search.
CREATE INDEX "messages_search_tsv_idx" ON "messages" USING GIN ("search_tsv");

-- CreateFunction/CreateTrigger: keep messages.search_tsv current.
CREATE FUNCTION "messages_search_tsv_update"() RETURNS trigger AS $$
BEGIN
    NEW."search_tsv" := to_tsvector('english', coalesce(NEW."subject", '') || ' ' || coalesce(NEW."content", ''));
    RETURN NEW;
END
$$ LANGUAGE plpgsql;

CREATE TRIGGER "messages_search_tsv_update"
    BEFORE INSERT OR UPDATE OF "subject", "content" ON "messages"
    FOR EACH ROW EXECUTE FUNCTION "messages_search_tsv_update"();

-- CreateIndex: unread messages (flag read = 1 unset).
CREATE INDEX "user_messages_unread_idx" ON "user_messages"("user_id", "message_id") WHERE ("flags" & 1) = 0;

-- CreateIndex: direct messages (flag is_private = 256 set).
CREATE INDEX "user_messages_private_idx" ON "user_messages"("user_id", "message_id") WHERE ("flags" & 256) <> 0;

-- CreateIndex: starred messages (flag starred = 2 set).
CREATE INDEX "user_messages_starred_idx" ON "user_messages"("user_id", "message_id") WHERE ("flags" & 2) <> 0;

-- CreateIndex: mentions (mentioned 8, stream_wildcard_mentioned 16, topic_wildcard_mentioned 32, has_alert_word 64).
CREATE INDEX "user_messages_mentioned_idx" ON "user_messages"("user_id", "message_id") WHERE ("flags" & 120) <> 0;

-- CreateIndex: active subscribers of a recipient.
CREATE INDEX "subscriptions_recipient_id_user_id_active_idx" ON "subscriptions"("recipient_id", "user_id") WHERE "active" AND "is_user_active";

-- CreateIndex: one visibility policy per user and topic (topics compare case-insensitively).
CREATE UNIQUE INDEX "user_topics_user_id_stream_id_lower_topic_name_key" ON "user_topics"("user_id", "stream_id", lower("topic_name"));

-- CreateIndex: users with a policy for a topic.
CREATE INDEX "user_topics_stream_id_lower_topic_name_idx" ON "user_topics"("stream_id", lower("topic_name"));

-- CreateIndex: outbox rows not yet published, for the sweeper.
CREATE INDEX "outbox_events_unpublished_idx" ON "outbox_events"("id") WHERE "published_at" IS NULL;
