/**
 * Applies every migration to an empty database and checks that each model,
 * column, primary key, unique constraint, index and foreign key declared in
 * prisma/schema.prisma exists as declared. Also covers the migration runner.
 * Needs only PostgreSQL (not the shared jest globalSetup).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { applyMigrations, listMigrations, migrationsDir } from './migrate';
import { parseSchema, type ModelInfo } from './schema-introspection';

const BASE_URL = (
  process.env.SCHEMA_TEST_PG_URL ??
  process.env.TEST_PG_URL ??
  'postgresql://postgres@127.0.0.1:5432'
).replace(/\/+$/, '');
const dbName = `schema_test_${crypto.randomBytes(6).toString('hex')}`;
const dbUrl = `${BASE_URL}/${dbName}`;
const scratchDbs: string[] = [dbName];

/**
 * Relations whose key is checked once per statement by triggers instead of a foreign key's check
 * per row (migration 20261128130000_user_messages_statement_keys; user-messages-keys.test.ts).
 */
const KEYS_BY_TRIGGER = new Set(['user_messages_user_id_fkey', 'user_messages_message_id_fkey']);

let admin: Client;
let db: Client;
let firstRun: string[];
const models: ModelInfo[] = parseSchema();

async function createDb(name: string): Promise<void> {
  await admin.query(`CREATE DATABASE "${name}"`);
}

beforeAll(async () => {
  admin = new Client({ connectionString: `${BASE_URL}/postgres` });
  await admin.connect();
  await createDb(dbName);
  firstRun = await applyMigrations(dbUrl);
  db = new Client({ connectionString: dbUrl });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
  for (const name of scratchDbs) {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
  await admin?.end();
});

interface ColumnRow {
  table_name: string;
  column_name: string;
  is_nullable: 'YES' | 'NO';
  data_type: string;
  udt_name: string;
  datetime_precision: number | null;
  column_default: string | null;
}

interface IndexRow {
  table: string;
  name: string;
  columns: string[] | null;
  is_unique: boolean;
  is_primary: boolean;
  is_partial: boolean;
}

interface ForeignKeyRow {
  table: string;
  name: string;
  columns: string[];
  ref_table: string;
  ref_columns: string[];
  on_delete: string;
  on_update: string;
}

/** information_schema udt_name expected for a Prisma type / native type. */
function expectedUdt(sqlType: string): string {
  // An array column's type is its element type's name with a leading underscore.
  if (sqlType.endsWith('[]')) return `_${expectedUdt(sqlType.slice(0, -2))}`;
  const base = sqlType.replace(/\(.*\)$/, '').toUpperCase();
  const map: Record<string, string> = {
    INTEGER: 'int4',
    BIGINT: 'int8',
    TEXT: 'text',
    BOOLEAN: 'bool',
    TIMESTAMPTZ: 'timestamptz',
    TIMESTAMP: 'timestamp',
    JSONB: 'jsonb',
    'DOUBLE PRECISION': 'float8',
    DECIMAL: 'numeric',
    BYTEA: 'bytea',
    TSVECTOR: 'tsvector',
    UUID: 'uuid',
  };
  const udt = map[base];
  if (!udt) throw new Error(`no expected udt for ${sqlType}`);
  return udt;
}

describe('migrations', () => {
  let columns: Map<string, ColumnRow>;
  let tables: Set<string>;
  let indexes: IndexRow[];
  let fks: ForeignKeyRow[];

  beforeAll(async () => {
    const t = await db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    tables = new Set(t.rows.map((r) => r.table_name));
    const c = await db.query<ColumnRow>(
      `SELECT table_name, column_name, is_nullable, data_type, udt_name, datetime_precision, column_default
         FROM information_schema.columns WHERE table_schema = 'public'`,
    );
    columns = new Map(c.rows.map((r) => [`${r.table_name}.${r.column_name}`, r]));
    const i = await db.query<IndexRow>(
      `SELECT t.relname AS table, ic.relname AS name, ix.indisunique AS is_unique, ix.indisprimary AS is_primary,
              ix.indpred IS NOT NULL AS is_partial,
              CASE WHEN ix.indexprs IS NULL THEN
                ARRAY(SELECT a.attname::text FROM unnest(ix.indkey) WITH ORDINALITY AS k(attnum, ord)
                        JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.ord)
              END AS columns
         FROM pg_index ix
         JOIN pg_class ic ON ic.oid = ix.indexrelid
         JOIN pg_class t ON t.oid = ix.indrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace
        WHERE n.nspname = 'public'`,
    );
    indexes = i.rows;
    const f = await db.query<ForeignKeyRow>(
      `SELECT t.relname AS table, con.conname AS name, rt.relname AS ref_table,
              ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
                      JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum ORDER BY k.ord) AS columns,
              ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, ord)
                      JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum ORDER BY k.ord) AS ref_columns,
              con.confdeltype AS on_delete, con.confupdtype AS on_update
         FROM pg_constraint con
         JOIN pg_class t ON t.oid = con.conrelid
         JOIN pg_class rt ON rt.oid = con.confrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace
        WHERE con.contype = 'f' AND n.nspname = 'public'`,
    );
    fks = f.rows;
  });

  it('applies the migrations on disk to an empty database', () => {
    expect(firstRun).toEqual(listMigrations().map((m) => m.name));
    expect(firstRun.length).toBeGreaterThan(0);
  });

  it('parses a non-trivial schema', () => {
    const names = models.map((m) => m.name);
    for (const required of [
      'Realm',
      'User',
      'Recipient',
      'Stream',
      'Subscription',
      'UserGroup',
      'Message',
      'UserMessage',
    ]) {
      expect(names).toContain(required);
    }
  });

  describe.each(models.map((m) => [m.name, m] as const))('model %s', (_name, model) => {
    it(`has table ${model.table}`, () => {
      expect(tables.has(model.table)).toBe(true);
    });

    it('has every scalar column with a compatible type, nullability and default', () => {
      const problems: string[] = [];
      for (const col of model.columns) {
        const row = columns.get(`${model.table}.${col.column}`);
        if (!row) {
          problems.push(`missing column ${col.column}`);
          continue;
        }
        const udt = expectedUdt(col.sqlType);
        if (row.udt_name !== udt)
          problems.push(`${col.column}: type ${row.udt_name}, expected ${udt}`);
        const precision = /^TIMESTAMPTZ\((\d+)\)$/i.exec(col.sqlType);
        if (precision && row.datetime_precision !== Number(precision[1])) {
          problems.push(
            `${col.column}: precision ${row.datetime_precision}, expected ${precision[1]}`,
          );
        }
        const nullable = row.is_nullable === 'YES';
        if (nullable !== col.optional)
          problems.push(`${col.column}: nullable ${nullable}, expected ${col.optional}`);
        if (col.autoincrement) {
          if (!row.column_default?.startsWith('nextval('))
            problems.push(`${col.column}: not autoincrement`);
        } else if (col.sqlDefault === null) {
          if (row.column_default !== null)
            problems.push(`${col.column}: unexpected default ${row.column_default}`);
        } else if (row.column_default === null) {
          problems.push(`${col.column}: missing default ${col.sqlDefault}`);
        }
      }
      const declared = new Set(model.columns.map((c) => c.column));
      for (const key of columns.keys()) {
        const [table, column] = key.split('.');
        if (table === model.table && !declared.has(column))
          problems.push(`undeclared column ${column}`);
      }
      expect(problems).toEqual([]);
    });

    it('has its primary key', () => {
      const pk = indexes.find((i) => i.table === model.table && i.is_primary);
      expect(pk && { name: pk.name, columns: pk.columns }).toEqual(model.primaryKey);
    });

    it('has every declared unique constraint and index', () => {
      const actual = indexes
        .filter((i) => i.table === model.table && !i.is_primary && !i.is_partial && i.columns)
        .map((i) => ({ name: i.name, columns: i.columns, unique: i.is_unique }));
      const declared = [
        ...model.uniques.map((u) => ({ ...u, unique: true })),
        ...model.indexes.map((u) => ({ ...u, unique: false })),
      ];
      for (const d of declared) expect(actual).toContainEqual(d);
    });

    it('has a foreign key for every relation', () => {
      const actual = fks.filter((f) => f.table === model.table);
      const code: Record<string, string> = {
        CASCADE: 'c',
        RESTRICT: 'r',
        'SET NULL': 'n',
        'NO ACTION': 'a',
        'SET DEFAULT': 'd',
      };
      for (const fk of model.foreignKeys) {
        if (KEYS_BY_TRIGGER.has(fk.name)) continue;
        expect(actual).toContainEqual({
          table: model.table,
          name: fk.name,
          columns: fk.columns,
          ref_table: fk.referencedTable,
          ref_columns: fk.referencedColumns,
          on_delete: code[fk.onDelete],
          on_update: code[fk.onUpdate],
        });
      }
    });
  });

  it('checks the keys it keeps by statement triggers with those triggers', async () => {
    const { rows } = await db.query<{ tgname: string }>(
      `SELECT tgname FROM pg_trigger WHERE tgrelid = 'user_messages'::regclass AND NOT tgisinternal`,
    );
    expect(rows.map((r) => r.tgname)).toEqual(
      expect.arrayContaining(['user_messages_check_keys', 'user_messages_keys_fixed']),
    );
    expect(fks.filter((f) => KEYS_BY_TRIGGER.has(f.name))).toEqual([]);
  });

  it('has no tables the schema does not declare (besides _prisma_migrations)', () => {
    const declared = new Set(models.map((m) => m.table));
    expect([...tables].filter((t) => !declared.has(t) && t !== '_prisma_migrations')).toEqual([]);
  });

  it('has the SQL-only indexes the schema comments promise', () => {
    const names = new Set(indexes.map((i) => i.name));
    for (const name of [
      'streams_realm_id_lower_name_key',
      'users_realm_id_lower_delivery_email_key',
      'messages_recipient_id_lower_subject_id_idx',
      'messages_search_tsv_idx',
      'user_messages_unread_idx',
      'user_messages_private_idx',
      'user_topics_user_id_stream_id_lower_topic_name_key',
      'outbox_events_unpublished_idx',
    ]) {
      expect(names).toContain(name);
    }
  });

  it('enforces case-insensitive channel names and maintains the search vector', async () => {
    await db.query('BEGIN');
    try {
      const realm = await db.query<{ id: number }>(
        `INSERT INTO realms (string_id, name) VALUES ('', 'Test') RETURNING id`,
      );
      const realmId = realm.rows[0].id;
      await db.query(`INSERT INTO user_groups (realm_id, name) VALUES ($1, 'role:everyone')`, [
        realmId,
      ]);
      const g = await db.query<{ id: number }>(`SELECT id FROM user_groups WHERE realm_id = $1`, [
        realmId,
      ]);
      const gid = g.rows[0].id;
      const insertStream = (name: string) =>
        db.query(
          `INSERT INTO streams (realm_id, name, can_add_subscribers_group_id, can_administer_channel_group_id,
                                can_remove_subscribers_group_id, can_send_message_group_id, can_subscribe_group_id)
           VALUES ($1, $2, $3, $3, $3, $3, $3)`,
          [realmId, name, gid],
        );
      await insertStream('General');
      await db.query('SAVEPOINT s');
      await expect(insertStream('general')).rejects.toThrow(/streams_realm_id_lower_name_key/);
      await db.query('ROLLBACK TO SAVEPOINT s');

      const user = await db.query<{ id: number }>(
        `INSERT INTO users (realm_id, email, delivery_email, full_name, api_key_hash, api_key_ciphertext)
         VALUES ($1, 'a@example.com', 'a@example.com', 'A', 'h', 'c') RETURNING id`,
        [realmId],
      );
      const rcpt = await db.query<{ id: number }>(
        `INSERT INTO recipients (type, type_id) VALUES (2, 1) RETURNING id`,
      );
      const msg = await db.query<{ matches: boolean }>(
        `INSERT INTO messages (realm_id, sender_id, recipient_id, subject, content, rendered_content)
         VALUES ($1, $2, $3, 'Lunch plans', 'pizza tomorrow', '<p>pizza tomorrow</p>')
         RETURNING search_tsv @@ plainto_tsquery('english', 'pizza lunch') AS matches`,
        [realmId, user.rows[0].id, rcpt.rows[0].id],
      );
      expect(msg.rows[0].matches).toBe(true);
    } finally {
      await db.query('ROLLBACK');
    }
  });
});

describe('applyMigrations', () => {
  it('is idempotent and records Prisma-compatible rows', async () => {
    const logs: string[] = [];
    expect(await applyMigrations(dbUrl, (m) => logs.push(m))).toEqual([]);
    expect(logs.join('\n')).toMatch(/up to date/);
    const { rows } = await db.query(
      `SELECT migration_name, checksum, finished_at, rolled_back_at, applied_steps_count, logs FROM "_prisma_migrations" ORDER BY migration_name`,
    );
    expect(rows).toHaveLength(listMigrations().length);
    for (const [i, m] of listMigrations().entries()) {
      expect(rows[i]).toMatchObject({
        migration_name: m.name,
        checksum: m.checksum,
        rolled_back_at: null,
        applied_steps_count: 1,
      });
      expect(rows[i].finished_at).toBeInstanceOf(Date);
      const fileHash = crypto
        .createHash('sha256')
        .update(fs.readFileSync(path.join(migrationsDir(), m.name, 'migration.sql')))
        .digest('hex');
      expect(rows[i].checksum).toBe(fileHash);
    }
  });

  it('has the exact _prisma_migrations columns Prisma uses', async () => {
    const { rows } = await db.query(
      `SELECT column_name, data_type, character_maximum_length, is_nullable FROM information_schema.columns
        WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`,
    );
    expect(rows).toEqual([
      {
        column_name: 'id',
        data_type: 'character varying',
        character_maximum_length: 36,
        is_nullable: 'NO',
      },
      {
        column_name: 'checksum',
        data_type: 'character varying',
        character_maximum_length: 64,
        is_nullable: 'NO',
      },
      {
        column_name: 'finished_at',
        data_type: 'timestamp with time zone',
        character_maximum_length: null,
        is_nullable: 'YES',
      },
      {
        column_name: 'migration_name',
        data_type: 'character varying',
        character_maximum_length: 255,
        is_nullable: 'NO',
      },
      {
        column_name: 'logs',
        data_type: 'text',
        character_maximum_length: null,
        is_nullable: 'YES',
      },
      {
        column_name: 'rolled_back_at',
        data_type: 'timestamp with time zone',
        character_maximum_length: null,
        is_nullable: 'YES',
      },
      {
        column_name: 'started_at',
        data_type: 'timestamp with time zone',
        character_maximum_length: null,
        is_nullable: 'NO',
      },
      {
        column_name: 'applied_steps_count',
        data_type: 'integer',
        character_maximum_length: null,
        is_nullable: 'NO',
      },
    ]);
  });

  describe('with a scratch migrations directory', () => {
    let dir: string;
    let scratchUrl: string;

    beforeAll(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
      const name = `schema_test_${crypto.randomBytes(6).toString('hex')}`;
      scratchDbs.push(name);
      await createDb(name);
      scratchUrl = `${BASE_URL}/${name}`;
    });

    afterAll(() => {
      fs.rmSync(dir, { recursive: true, force: true });
    });

    const write = (name: string, sql: string) => {
      fs.mkdirSync(path.join(dir, name), { recursive: true });
      fs.writeFileSync(path.join(dir, name, 'migration.sql'), sql);
    };

    it('applies only new migrations, in order', async () => {
      write('20000101000000_a', 'CREATE TABLE a (id int);');
      expect(await applyMigrations(scratchUrl, undefined, dir)).toEqual(['20000101000000_a']);
      write('20000102000000_b', 'CREATE TABLE b (id int);');
      expect(await applyMigrations(scratchUrl, undefined, dir)).toEqual(['20000102000000_b']);
      expect(await applyMigrations(scratchUrl, undefined, dir)).toEqual([]);
    });

    it('refuses when an applied migration changed', async () => {
      write('20000101000000_a', 'CREATE TABLE a (id bigint);');
      await expect(applyMigrations(scratchUrl, undefined, dir)).rejects.toThrow(
        /20000101000000_a was modified/,
      );
      write('20000101000000_a', 'CREATE TABLE a (id int);');
    });

    it('rolls back a failing migration completely', async () => {
      write('20000103000000_bad', 'CREATE TABLE c (id int); SELECT * FROM no_such_table;');
      await expect(applyMigrations(scratchUrl, undefined, dir)).rejects.toThrow(
        /20000103000000_bad failed/,
      );
      const c = new Client({ connectionString: scratchUrl });
      await c.connect();
      try {
        const t = await c.query(`SELECT to_regclass('public.c') AS t`);
        expect(t.rows[0].t).toBeNull();
        const r = await c.query(
          `SELECT count(*)::int AS n FROM "_prisma_migrations" WHERE migration_name = '20000103000000_bad'`,
        );
        expect(r.rows[0].n).toBe(0);
      } finally {
        await c.end();
      }
      fs.rmSync(path.join(dir, '20000103000000_bad'), { recursive: true });
    });

    it('serializes concurrent runners', async () => {
      write('20000104000000_d', 'CREATE TABLE d (id int); SELECT pg_sleep(0.2);');
      const results = await Promise.all([
        applyMigrations(scratchUrl, undefined, dir),
        applyMigrations(scratchUrl, undefined, dir),
        applyMigrations(scratchUrl, undefined, dir),
      ]);
      expect(results.flat()).toEqual(['20000104000000_d']);
    });
  });
});
