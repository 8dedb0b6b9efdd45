-- Missed-message emails and mobile push notifications (docs/notifications.md).

-- What a push notification bouncer knows the organization and the user by (Zulip's uuid fields).
ALTER TABLE "realms" ADD COLUMN "uuid" UUID NOT NULL DEFAULT gen_random_uuid();
CREATE UNIQUE INDEX "realms_uuid_key" ON "realms"("uuid");
ALTER TABLE "users" ADD COLUMN "uuid" UUID NOT NULL DEFAULT gen_random_uuid();
CREATE UNIQUE INDEX "users_uuid_key" ON "users"("uuid");

-- Messages waiting for a user's next missed-message email. A channel-wide mention inserts one
-- row per member: two indexes, and no foreign keys (per-row key checks doubled that insert); the
-- sender drops rows whose user or message is gone.
CREATE TABLE "missed_message_emails" (
    "user_id" INTEGER NOT NULL,
    "message_id" INTEGER NOT NULL,
    "trigger" TEXT NOT NULL,
    "scheduled_at" TIMESTAMPTZ(6) NOT NULL,
    "sent_at" TIMESTAMPTZ(6),
    CONSTRAINT "missed_message_emails_pkey" PRIMARY KEY ("user_id", "message_id")
);
CREATE INDEX "missed_message_emails_due_idx" ON "missed_message_emails"("scheduled_at") WHERE "sent_at" IS NULL;

-- Each user's batch being collected, and when it is due.
CREATE TABLE "missed_message_email_batches" (
    "user_id" INTEGER NOT NULL,
    "due_at" TIMESTAMPTZ(6) NOT NULL,
    CONSTRAINT "missed_message_email_batches_pkey" PRIMARY KEY ("user_id")
);

-- Messages whose notifications the worker has not decided yet (written with the message).
CREATE TABLE "notification_pending" (
    "message_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "notification_pending_pkey" PRIMARY KEY ("message_id")
);
CREATE INDEX "notification_pending_created_at_idx" ON "notification_pending"("created_at");
