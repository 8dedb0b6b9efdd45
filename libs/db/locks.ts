import { Prisma } from '../../generated/prisma/client';
import type { Tx } from './client';

const INT4_LIMIT = 2 ** 31;

/** Tables whose rows an action locks, by id, before it reads them to write them back. */
export type LockedTable =
  | 'custom_profile_fields'
  | 'drafts'
  | 'messages'
  | 'realm_filters'
  | 'realms'
  | 'scheduled_messages'
  | 'streams'
  | 'user_groups'
  | 'users';

/**
 * `FOR NO KEY UPDATE` where the row is changed but its id stays (foreign keys that point at it,
 * which take `FOR KEY SHARE`, are not held up); `FOR UPDATE` where it is deleted.
 */
export type LockStrength = 'FOR NO KEY UPDATE' | 'FOR UPDATE';

/**
 * Locks the rows of `table` with these ids until the transaction ends, in id order (so two
 * transactions locking overlapping sets take them in the same order and cannot deadlock on
 * them), and returns the ids that exist. Anything read after this, in a new statement of the same
 * transaction, sees the rows as the last writer committed them, and no one else can write them
 * back in between (docs/architecture.md, "Read-modify-write").
 */
export async function lockRows(
  tx: Tx,
  table: LockedTable,
  ids: number[],
  strength: LockStrength = 'FOR NO KEY UPDATE',
): Promise<Set<number>> {
  // An id no int column can hold names no row: not found, as a lookup would answer.
  const held = ids.filter((id) => Number.isInteger(id) && id >= -INT4_LIMIT && id < INT4_LIMIT);
  if (held.length === 0) return new Set();
  const rows = await tx.$queryRaw<{ id: number }[]>(Prisma.sql`
    SELECT id FROM ${Prisma.raw(table)} WHERE id = ANY(${held}::int[])
    ORDER BY id ${Prisma.raw(strength)}`);
  return new Set(rows.map((r) => r.id));
}

/** `lockRows` for one row: whether it exists (and is now locked). */
export async function lockRow(
  tx: Tx,
  table: LockedTable,
  id: number,
  strength: LockStrength = 'FOR NO KEY UPDATE',
): Promise<boolean> {
  return (await lockRows(tx, table, [id], strength)).has(id);
}

/**
 * Locks a name that has no row yet (an email about to be taken) until the transaction ends: a
 * transaction-scoped advisory lock on the key's 64-bit hash. Two transactions creating the same
 * name take turns, and the second's check for it, made after this, finds the first's row instead
 * of failing on the unique index.
 */
export async function lockKey(tx: Tx, key: string): Promise<void> {
  // The function returns void, a type no driver reads: the row returned is a constant.
  await tx.$queryRaw(
    Prisma.sql`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))) l`,
  );
}
