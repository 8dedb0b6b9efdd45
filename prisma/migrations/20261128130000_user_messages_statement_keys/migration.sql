-- user_messages' two keys (user_id -> users, message_id -> messages) checked once per statement
-- instead of once per row. A foreign key runs a `SELECT ... FOR KEY SHARE` per inserted row: 100
-- of the 106 statements PostgreSQL ran per message to a 50-member channel. These triggers keep
-- the same guarantees with one check per statement and per table:
-- - an insert takes the same FOR KEY SHARE locks on every user and message it names, in one
--   query each, and fails with foreign_key_violation (23503) under the constraint's old name when
--   one is missing, so a concurrent delete either waits for it or makes it fail, as before;
-- - deleting users or messages deletes their rows in one statement (was ON DELETE CASCADE);
-- - the keys cannot change: neither user_messages' own columns nor the ids they refer to.

ALTER TABLE "user_messages" DROP CONSTRAINT "user_messages_user_id_fkey";
ALTER TABLE "user_messages" DROP CONSTRAINT "user_messages_message_id_fkey";

CREATE FUNCTION user_messages_check_keys() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids int[];
  found int;
BEGIN
  -- The ids as an array, not a join with the transition table: `= ANY(array)` always takes the
  -- primary key's index, where a join's plan depends on a row estimate the planner cannot have.
  SELECT array_agg(DISTINCT user_id) INTO ids FROM new_rows;
  SELECT count(*) INTO found FROM (
    SELECT 1 FROM users u WHERE u.id = ANY(ids) FOR KEY SHARE OF u
  ) locked;
  IF found <> cardinality(ids) THEN
    RAISE foreign_key_violation USING
      MESSAGE = 'insert or update on table "user_messages" violates foreign key constraint "user_messages_user_id_fkey"',
      CONSTRAINT = 'user_messages_user_id_fkey', TABLE = 'user_messages';
  END IF;
  SELECT array_agg(DISTINCT message_id) INTO ids FROM new_rows;
  SELECT count(*) INTO found FROM (
    SELECT 1 FROM messages m WHERE m.id = ANY(ids) FOR KEY SHARE OF m
  ) locked;
  IF found <> cardinality(ids) THEN
    RAISE foreign_key_violation USING
      MESSAGE = 'insert or update on table "user_messages" violates foreign key constraint "user_messages_message_id_fkey"',
      CONSTRAINT = 'user_messages_message_id_fkey', TABLE = 'user_messages';
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER user_messages_check_keys AFTER INSERT ON "user_messages"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION user_messages_check_keys();

CREATE FUNCTION user_messages_keys_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE restrict_violation USING MESSAGE = format('%I.%I cannot change: user_messages refers to it',
    TG_TABLE_NAME, CASE WHEN TG_TABLE_NAME = 'user_messages' THEN 'user_id/message_id' ELSE 'id' END);
END $$;

CREATE TRIGGER user_messages_keys_fixed BEFORE UPDATE ON "user_messages" FOR EACH ROW
  WHEN (OLD.user_id IS DISTINCT FROM NEW.user_id OR OLD.message_id IS DISTINCT FROM NEW.message_id)
  EXECUTE FUNCTION user_messages_keys_fixed();
CREATE TRIGGER user_messages_keys_fixed BEFORE UPDATE ON "users" FOR EACH ROW
  WHEN (OLD.id IS DISTINCT FROM NEW.id) EXECUTE FUNCTION user_messages_keys_fixed();
CREATE TRIGGER user_messages_keys_fixed BEFORE UPDATE ON "messages" FOR EACH ROW
  WHEN (OLD.id IS DISTINCT FROM NEW.id) EXECUTE FUNCTION user_messages_keys_fixed();

CREATE FUNCTION user_messages_delete_of_users() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM user_messages um USING old_rows o WHERE um.user_id = o.id;
  RETURN NULL;
END $$;

CREATE FUNCTION user_messages_delete_of_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM user_messages um USING old_rows o WHERE um.message_id = o.id;
  RETURN NULL;
END $$;

CREATE TRIGGER user_messages_delete_of_users AFTER DELETE ON "users"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
  EXECUTE FUNCTION user_messages_delete_of_users();
CREATE TRIGGER user_messages_delete_of_messages AFTER DELETE ON "messages"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
  EXECUTE FUNCTION user_messages_delete_of_messages();
