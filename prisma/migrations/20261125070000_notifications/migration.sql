-- Missed-message emails and mobile push notifications (docs/notifications.md).

-- What a push notification bouncer knows the organization and the user by (Zulip's uuid fields).
ALTER TABLE "realms" ADD COLUMN "uuid" UUID NOT NULL DEFAULT gen_random_uuid();
CREATE UNIQUE INDEX "realms_uuid_key" ON "realms"("uuid");
ALTER TABLE "users" ADD COLUMN "uuid" UUID NOT NULL DEFAULT gen_random_uuid();
CREATE UNIQUE INDEX "users_uuid_key" ON "users"("uuid");

-- Messages waiting for a user's next missed-message email.
CREATE TABLE "missed_message_emails" (
    "id" BIGSERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "message_id" INTEGER NOT NULL,
    "trigger" TEXT NOT NULL,
    "scheduled_at" TIMESTAMPTZ(6) NOT NULL,
    "sent_at" TIMESTAMPTZ(6),
    CONSTRAINT "missed_message_emails_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "missed_message_emails_user_id_message_id_key" ON "missed_message_emails"("user_id", "message_id");
CREATE INDEX "missed_message_emails_pending_idx" ON "missed_message_emails"("user_id", "scheduled_at") WHERE "sent_at" IS NULL;
ALTER TABLE "missed_message_emails" ADD CONSTRAINT "missed_message_emails_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "missed_message_emails" ADD CONSTRAINT "missed_message_emails_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;
