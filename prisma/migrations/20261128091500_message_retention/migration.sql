-- Message retention (Zulip's zerver/lib/retention.py): expired messages move to archive tables in
-- batches, each batch one archive transaction, and are purged from the archive after a delay.
-- The archive keeps the original ids, so an archive transaction can be restored as it was.
CREATE TABLE "archive_transactions" (
    "id" SERIAL NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "archived_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    -- 1: retention policy, 2: manual (Zulip's ArchiveTransaction.type).
    "kind" INTEGER NOT NULL,
    CONSTRAINT "archive_transactions_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "archive_transactions_archived_at_idx" ON "archive_transactions"("archived_at");
ALTER TABLE "archive_transactions" ADD CONSTRAINT "archive_transactions_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "archived_messages" (
    "id" INTEGER NOT NULL,
    "archive_transaction_id" INTEGER NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "sender_id" INTEGER NOT NULL,
    "recipient_id" INTEGER NOT NULL,
    "subject" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "rendered_content" TEXT NOT NULL,
    "rendered_content_version" INTEGER,
    "date_sent" TIMESTAMPTZ(6) NOT NULL,
    "sending_client_name" TEXT NOT NULL,
    "last_edit_time" TIMESTAMPTZ(6),
    "last_moved_time" TIMESTAMPTZ(6),
    "edit_history" JSONB,
    "has_attachment" BOOLEAN NOT NULL,
    "has_image" BOOLEAN NOT NULL,
    "has_link" BOOLEAN NOT NULL,
    "is_channel_message" BOOLEAN NOT NULL,
    CONSTRAINT "archived_messages_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "archived_messages_archive_transaction_id_idx" ON "archived_messages"("archive_transaction_id");
ALTER TABLE "archived_messages" ADD CONSTRAINT "archived_messages_archive_transaction_id_fkey" FOREIGN KEY ("archive_transaction_id") REFERENCES "archive_transactions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "archived_user_messages" (
    "id" BIGINT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "message_id" INTEGER NOT NULL,
    "flags" BIGINT NOT NULL,
    CONSTRAINT "archived_user_messages_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "archived_user_messages_message_id_idx" ON "archived_user_messages"("message_id");
ALTER TABLE "archived_user_messages" ADD CONSTRAINT "archived_user_messages_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "archived_messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "archived_reactions" (
    "id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,
    "message_id" INTEGER NOT NULL,
    "emoji_name" TEXT NOT NULL,
    "emoji_code" TEXT NOT NULL,
    "reaction_type" TEXT NOT NULL,
    CONSTRAINT "archived_reactions_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "archived_reactions_message_id_idx" ON "archived_reactions"("message_id");
ALTER TABLE "archived_reactions" ADD CONSTRAINT "archived_reactions_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "archived_messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "archived_submessages" (
    "id" INTEGER NOT NULL,
    "message_id" INTEGER NOT NULL,
    "sender_id" INTEGER NOT NULL,
    "msg_type" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    CONSTRAINT "archived_submessages_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "archived_submessages_message_id_idx" ON "archived_submessages"("message_id");
ALTER TABLE "archived_submessages" ADD CONSTRAINT "archived_submessages_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "archived_messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- An upload linked from an archived message is kept until the archive is purged: the unclaimed
-- uploads' clean-up counts these links as claims.
CREATE TABLE "archived_attachment_messages" (
    "attachment_id" INTEGER NOT NULL,
    "message_id" INTEGER NOT NULL,
    CONSTRAINT "archived_attachment_messages_pkey" PRIMARY KEY ("attachment_id","message_id")
);
CREATE INDEX "archived_attachment_messages_message_id_idx" ON "archived_attachment_messages"("message_id");
ALTER TABLE "archived_attachment_messages" ADD CONSTRAINT "archived_attachment_messages_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "archived_messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "archived_attachment_messages" ADD CONSTRAINT "archived_attachment_messages_attachment_id_fkey" FOREIGN KEY ("attachment_id") REFERENCES "attachments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Expired messages are found by age within an organization.
CREATE INDEX "messages_realm_id_date_sent_idx" ON "messages"("realm_id", "date_sent");
