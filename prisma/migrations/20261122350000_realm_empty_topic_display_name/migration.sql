-- How the empty topic is shown to clients without empty-topic support (FL 334).
ALTER TABLE "realms" ADD COLUMN "empty_topic_display_name" TEXT NOT NULL DEFAULT 'general chat';
