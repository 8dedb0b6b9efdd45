-- Deleting messages (retention, a topic's deletion) clears scheduled_messages.delivered_message_id
-- (ON DELETE SET NULL): without an index PostgreSQL's key action scanned the whole table once per
-- deleted message, a thousand scans per retention batch.
CREATE INDEX "scheduled_messages_delivered_message_id_idx" ON "scheduled_messages"("delivered_message_id");
