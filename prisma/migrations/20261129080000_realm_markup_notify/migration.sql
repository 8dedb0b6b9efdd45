-- Processes remember each organization's custom emoji and linkifiers, which every message's
-- rendering needs, and forget them when PostgreSQL says they changed: on the principal change
-- feed's channel (one listening connection per process, one commit order with its barrier),
-- payload '<kind>:<realm id>', the kind the trigger's argument. A trigger covers every writer,
-- as for users and realms; migration channel_notify uses the same function for channels.
CREATE FUNCTION "notify_realm_rows_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('principal_changes',
                    TG_ARGV[0] || ':' || COALESCE(NEW."realm_id", OLD."realm_id"));
  IF TG_OP = 'UPDATE' AND NEW."realm_id" IS DISTINCT FROM OLD."realm_id" THEN
    PERFORM pg_notify('principal_changes', TG_ARGV[0] || ':' || OLD."realm_id");
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "realm_emoji_markup_change" AFTER INSERT OR UPDATE OR DELETE ON "realm_emoji"
  FOR EACH ROW EXECUTE FUNCTION "notify_realm_rows_change"('markup');
CREATE TRIGGER "realm_filters_markup_change" AFTER INSERT OR UPDATE OR DELETE ON "realm_filters"
  FOR EACH ROW EXECUTE FUNCTION "notify_realm_rows_change"('markup');
