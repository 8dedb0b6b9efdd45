-- System bots (issue 14): the notification bot each organization was created with becomes a system
-- bot, which Zulip's clients know as a cross-realm bot: outside `realm_users` and `GET /bots`, and no
-- one's to administer or to act as through the API.
ALTER TABLE "users" ADD COLUMN "is_system_bot" BOOLEAN NOT NULL DEFAULT false;

UPDATE "users" SET "is_system_bot" = true
WHERE "id" IN (
  SELECT DISTINCT ON ("realm_id") "id" FROM "users"
  WHERE "is_bot" AND "bot_owner_id" IS NULL AND "full_name" = 'Notification Bot'
    AND "email" LIKE 'notification-bot@%'
  ORDER BY "realm_id", "id"
);
