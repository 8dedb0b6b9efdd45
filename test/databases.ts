import { Client } from 'pg';

/** Tests reach the machine's own PostgreSQL; TEST_PG_URL points elsewhere when needed. */
export const PG_BASE_URL = process.env.TEST_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432';
export const TEMPLATE_DB = 'chat_test_template';
export const TEST_DB_PREFIX = 'chat_test_';

export const databaseUrl = (name: string) => `${PG_BASE_URL}/${name}`;

export async function withAdminClient<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: databaseUrl('postgres') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function dropDatabase(client: Client, name: string): Promise<void> {
  await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}
