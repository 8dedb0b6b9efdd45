-- The job relay of every worker process waits for this word instead of asking PostgreSQL ten
-- times a second whether a job row waits: a statement that inserts job rows notifies once when
-- its transaction commits (PostgreSQL folds a transaction's identical notifications into one).
-- Reconciliation, which marks rows unpublished again, runs in the relay itself.
CREATE FUNCTION "notify_job_outbox_written"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('job_outbox_written', '');
  RETURN NULL;
END
$$;

CREATE TRIGGER "job_outbox_written" AFTER INSERT ON "job_outbox"
  FOR EACH STATEMENT EXECUTE FUNCTION "notify_job_outbox_written"();
