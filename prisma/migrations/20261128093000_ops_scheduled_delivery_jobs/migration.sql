-- Scheduled messages from before the job outbox (0.1.0) had their delivery job in Redis only:
-- write the outbox row each pending one would have today, so the workers hand it to BullMQ
-- even if that job is gone or sits under the old queue prefix. A delivery that runs twice
-- finds the message already sent (the row is locked while pending).
INSERT INTO "job_outbox" ("job_name", "payload", "job_id", "run_at")
SELECT 'deliver-scheduled-message',
       jsonb_build_object('scheduledMessageId', sm."id"),
       'sched-' || sm."id" || '-' || (extract(epoch FROM sm."scheduled_timestamp") * 1000)::bigint,
       sm."scheduled_timestamp"
FROM "scheduled_messages" sm
WHERE NOT sm."delivered" AND NOT sm."failed"
  AND NOT EXISTS (
    SELECT 1 FROM "job_outbox" j
    WHERE j."job_name" = 'deliver-scheduled-message'
      AND j."payload" @> jsonb_build_object('scheduledMessageId', sm."id")
  )
ON CONFLICT ("job_id") DO NOTHING;
