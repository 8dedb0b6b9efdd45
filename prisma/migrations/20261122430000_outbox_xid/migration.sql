-- The writing transaction's id, so a queue registered from a snapshot can skip the events of
-- transactions the snapshot already shows (POST /register: state plus events, each change once).
ALTER TABLE "outbox_events" ADD COLUMN "xid" BIGINT NOT NULL DEFAULT (pg_current_xact_id()::text::bigint);
