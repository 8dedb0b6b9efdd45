-- Processes remember each organization's channels, which every send looks up, and forget them
-- when PostgreSQL says one changed: on the principal change feed's channel, payload
-- 'channel:<realm id>' (migration realm_markup_notify does the same for emoji and linkifiers).
CREATE FUNCTION "notify_channel_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('principal_changes', 'channel:' || COALESCE(NEW."realm_id", OLD."realm_id"));
  IF TG_OP = 'UPDATE' AND NEW."realm_id" IS DISTINCT FROM OLD."realm_id" THEN
    PERFORM pg_notify('principal_changes', 'channel:' || OLD."realm_id");
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "streams_channel_change" AFTER INSERT OR UPDATE OR DELETE ON "streams"
  FOR EACH ROW EXECUTE FUNCTION "notify_channel_change"();
