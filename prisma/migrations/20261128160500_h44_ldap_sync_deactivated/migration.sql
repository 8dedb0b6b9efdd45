-- Users deactivated by sync-ldap-users because they left the directory: the next sync that finds
-- them again reactivates them (an administrator's deactivation is never undone by the sync).
ALTER TABLE "users" ADD COLUMN "ldap_sync_deactivated" BOOLEAN NOT NULL DEFAULT false;
