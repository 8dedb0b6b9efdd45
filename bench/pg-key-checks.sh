#!/usr/bin/env bash
# PostgreSQL CPU of one message's write (a message row and 50 user_messages rows in one
# statement) with user_messages' keys as foreign keys (checked per row) against the statement
# triggers of migration 20261128130000_user_messages_statement_keys (checked per statement).
# Not a test: `bash bench/pg-key-checks.sh [PGURL]`, on a PostgreSQL of your own. CPU is read from
# the backend's /proc/<pid>/stat, so the server must run on this machine; it counts CPU time, not
# wall time, and so holds on a busy box better than a timing would.
set -euo pipefail
url=${1:-postgresql://postgres@127.0.0.1:5432}
messages=${MESSAGES:-1500}
rounds=${ROUNDS:-4}
psql "$url" -q -v ON_ERROR_STOP=1 <<'SQL'
DROP DATABASE IF EXISTS bench_key_checks;
CREATE DATABASE bench_key_checks;
\c bench_key_checks
CREATE TABLE users (id int PRIMARY KEY, name text);
CREATE TABLE messages (id int PRIMARY KEY, body text);
INSERT INTO users SELECT g, 'u' || g FROM generate_series(1, 2000) g;
CREATE SEQUENCE message_ids;
CREATE TABLE um_fk (id bigserial PRIMARY KEY,
  user_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  message_id int NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  flags bigint DEFAULT 0, UNIQUE (user_id, message_id));
CREATE INDEX ON um_fk (message_id);
CREATE TABLE um_trig (id bigserial PRIMARY KEY, user_id int NOT NULL, message_id int NOT NULL,
  flags bigint DEFAULT 0, UNIQUE (user_id, message_id));
CREATE INDEX ON um_trig (message_id);
CREATE FUNCTION check_keys() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE ids int[]; found int;
BEGIN
  SELECT array_agg(DISTINCT user_id) INTO ids FROM new_rows;
  SELECT count(*) INTO found FROM (SELECT 1 FROM users u WHERE u.id = ANY(ids) FOR KEY SHARE OF u) l;
  IF found <> cardinality(ids) THEN RAISE foreign_key_violation; END IF;
  SELECT array_agg(DISTINCT message_id) INTO ids FROM new_rows;
  SELECT count(*) INTO found FROM (SELECT 1 FROM messages m WHERE m.id = ANY(ids) FOR KEY SHARE OF m) l;
  IF found <> cardinality(ids) THEN RAISE foreign_key_violation; END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER check_keys AFTER INSERT ON um_trig REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION check_keys();
ANALYZE;
SQL
db="${url%/}/bench_key_checks"
cpu_of() { awk '{print $14 + $15}' "/proc/$1/stat"; }
run() {
  local table=$1 pid before after
  coproc PSQL { psql "$db" -qAt 2>&1; }
  echo 'SELECT pg_backend_pid();' >&"${PSQL[1]}"
  read -r pid <&"${PSQL[0]}"
  before=$(cpu_of "$pid")
  cat >&"${PSQL[1]}" <<SQL
DO \$\$ DECLARE b int; BEGIN FOR i IN 1..$messages LOOP b := 1 + (random() * 1900)::int;
  WITH m AS (INSERT INTO messages VALUES (nextval('message_ids'), 'x') RETURNING id)
  INSERT INTO $table (user_id, message_id) SELECT g, m.id FROM m, generate_series(b, b + 49) g;
END LOOP; END \$\$;
SELECT 'done';
SQL
  read -r _ <&"${PSQL[0]}"
  after=$(cpu_of "$pid")
  exec {PSQL[1]}>&-
  wait "$PSQL_PID" || true
  echo "$table: $(( (after - before) * 10000 / messages )) us of backend CPU per message"
}
for _ in $(seq 1 "$rounds"); do run um_fk; run um_trig; done
psql "$url" -q -c 'DROP DATABASE bench_key_checks'
