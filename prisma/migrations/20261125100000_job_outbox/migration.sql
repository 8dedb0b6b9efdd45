-- Jobs decided by a transaction are written in it (docs/reliability.md, "Jobs"): the relay in the
-- worker tier hands each row to BullMQ under its stable job id, then marks it published; the
-- worker marks it done. Rows not done are handed to BullMQ again after Redis loses its data.
CREATE TABLE "job_outbox" (
    "id" BIGSERIAL NOT NULL,
    "job_name" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "job_id" TEXT NOT NULL,
    "run_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    "published_at" TIMESTAMPTZ(6),
    "done_at" TIMESTAMPTZ(6),
    CONSTRAINT "job_outbox_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "job_outbox_job_id_key" ON "job_outbox"("job_id");
CREATE INDEX "job_outbox_unpublished_idx" ON "job_outbox"("id") WHERE "published_at" IS NULL;
CREATE INDEX "job_outbox_not_done_idx" ON "job_outbox"("id") WHERE "done_at" IS NULL;
CREATE INDEX "job_outbox_done_at_idx" ON "job_outbox"("done_at") WHERE "done_at" IS NOT NULL;

-- Effects a job must have once however often it runs (an outgoing webhook's reply), keyed by
-- the job and effect; written in the transaction of the effect itself.
CREATE TABLE "job_effects" (
    "key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    CONSTRAINT "job_effects_pkey" PRIMARY KEY ("key")
);
CREATE INDEX "job_effects_created_at_idx" ON "job_effects"("created_at");

-- Pruning published events by age.
CREATE INDEX "outbox_events_published_at_idx" ON "outbox_events"("published_at") WHERE "published_at" IS NOT NULL;
