-- realms.push_notifications_enabled now records the push bouncer's last can_push answer for the
-- organization (Zulip's RemoteRealm can_push). Nothing wrote the column before, so false meant
-- "not known": every organization starts as able to push until the bouncer says otherwise.
ALTER TABLE "realms" ALTER COLUMN "push_notifications_enabled" SET DEFAULT true;
UPDATE "realms" SET "push_notifications_enabled" = true;
