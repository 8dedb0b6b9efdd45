import type { TestContext } from './harness';

/**
 * Runs `write` with `table`'s own triggers off: a change PostgreSQL's change notifications do not
 * report, to show what a process answers from memory.
 */
export async function withoutTriggers<T>(
  db: TestContext['db'],
  table: string,
  write: () => Promise<T>,
): Promise<T> {
  await db.$executeRawUnsafe(`ALTER TABLE ${table} DISABLE TRIGGER USER`);
  try {
    return await write();
  } finally {
    await db.$executeRawUnsafe(`ALTER TABLE ${table} ENABLE TRIGGER USER`);
  }
}
