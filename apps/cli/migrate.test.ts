import { Client } from 'pg';
import { cliEnv, runCli } from '../../test/cli';
import { databaseUrl, withAdminClient } from '../../test/databases';
import { startTestContext, type TestContext } from '../../test/harness';
import { listMigrations } from '../../libs/db/migrate';

/** Issue 46, point 1: `migrate --status` and `--check` read and never write; flags are checked. */
let t: TestContext;

beforeAll(async () => {
  t = await startTestContext();
});
afterAll(async () => {
  await t.close();
});

const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, { ...cliEnv(t.config), ...env });

async function withDb<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: t.config.databaseUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const names = listMigrations().map((m) => m.name);
const last = names[names.length - 1];

it('--status lists every applied migration and none pending on a migrated database', async () => {
  const run = await cli(['migrate', '--status', '--json']);
  expect(run.code).toBe(0);
  expect(run.json.databaseExists).toBe(true);
  expect((run.json.applied as { name: string }[]).map((a) => a.name)).toEqual(names);
  expect(run.json.pending).toEqual([]);
  const check = await cli(['migrate', '--check', '--json']);
  expect(check.code).toBe(0);
}, 60000);

it('--check exits 1 naming what is pending and applies nothing; migrate then applies it', async () => {
  await withDb(async (db) => {
    const { rows } = await db.query<{ checksum: string }>(
      'DELETE FROM "_prisma_migrations" WHERE migration_name = $1 RETURNING checksum',
      [last],
    );
    expect(rows).toHaveLength(1);
  });
  const status = await cli(['migrate', '--status', '--json']);
  expect(status.code).toBe(0);
  expect(status.json.pending).toEqual([last]);

  const check = await cli(['migrate', '--check', '--json']);
  expect(check.code).toBe(1);
  expect(check.json.error).toBe(`migrations 1 pending: ${last}`);
  const count = await withDb(
    async (db) =>
      (await db.query('SELECT 1 FROM "_prisma_migrations" WHERE migration_name = $1', [last]))
        .rowCount,
  );
  expect(count).toBe(0);

  // Put the row back as migrate would have written it (the migration's SQL ran already).
  await withDb(async (db) => {
    const m = listMigrations().find((x) => x.name === last)!;
    await db.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, finished_at, applied_steps_count)
       VALUES (gen_random_uuid()::text, $1, $2, now(), 1)`,
      [m.checksum, m.name],
    );
  });
  expect((await cli(['migrate', '--check', '--json'])).code).toBe(0);
}, 60000);

it('--status on a missing database says so and creates nothing', async () => {
  const name = `${t.databaseName}_missing`;
  const run = await cli(['migrate', '--status', '--json'], { DATABASE_URL: databaseUrl(name) });
  expect(run.code).toBe(0);
  expect(run.json).toMatchObject({ databaseExists: false, applied: [], pending: names });
  const exists = await withAdminClient(
    async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount,
  );
  expect(exists).toBe(0);
}, 60000);

it('refuses unknown flags with status 2 and the usage, and --status with --check', async () => {
  const typo = await cli(['migrate', '--chek']);
  expect(typo.code).toBe(2);
  expect(typo.stderr).toContain("Unknown option '--chek'");
  expect(typo.stderr).toContain('usage: npm run --silent cli -- migrate [--status | --check]');
  const both = await cli(['migrate', '--status', '--check']);
  expect(both.code).toBe(2);
}, 60000);

it('help and --help print the usage on stdout and exit 0', async () => {
  for (const args of [['help'], ['--help'], []]) {
    const run = await cli(args);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('usage: npm run --silent cli -- <command>');
    expect(run.stdout).toContain('  migrate [--status | --check]');
  }
  const one = await cli(['migrate', '--help']);
  expect(one.code).toBe(0);
  expect(one.stdout).toBe('usage: npm run --silent cli -- migrate [--status | --check]\n');
}, 60000);
