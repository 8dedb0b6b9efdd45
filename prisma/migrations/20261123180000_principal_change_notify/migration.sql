-- Processes cache who a credential belongs to (the user row and its organization's row) and drop
-- an entry when PostgreSQL says the row changed. A trigger, not the code that writes, sends the
-- word: it covers every writer (each action, the CLI, an operator's SQL) and is sent only when
-- the transaction commits. Payload: 'user:<id>' or 'realm:<id>'.
CREATE FUNCTION "notify_principal_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('principal_changes', TG_ARGV[0] || ':' || COALESCE(OLD."id", NEW."id"));
  RETURN NULL;
END
$$;

CREATE TRIGGER "users_principal_update" AFTER UPDATE ON "users"
  FOR EACH ROW WHEN (OLD IS DISTINCT FROM NEW)
  EXECUTE FUNCTION "notify_principal_change"('user');
CREATE TRIGGER "users_principal_delete" AFTER DELETE ON "users"
  FOR EACH ROW EXECUTE FUNCTION "notify_principal_change"('user');

CREATE TRIGGER "realms_principal_update" AFTER UPDATE ON "realms"
  FOR EACH ROW WHEN (OLD IS DISTINCT FROM NEW)
  EXECUTE FUNCTION "notify_principal_change"('realm');
-- A new organization changes which one a host name reaches.
CREATE TRIGGER "realms_principal_insert_delete" AFTER INSERT OR DELETE ON "realms"
  FOR EACH ROW EXECUTE FUNCTION "notify_principal_change"('realm');
