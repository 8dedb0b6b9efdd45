import type { PoolClient } from 'pg';
import { at } from '../core/at';
import type { CopyValue } from './copy';
import { ImportError } from './errors';

/**
 * The keys of the messages and user_messages an import loads, checked once at its end rather than
 * row by row. PostgreSQL checked three foreign keys per message (a query each: about a quarter of
 * its work in a bulk load) and user_messages' keys per statement; with session_replication_role
 * `replica` for the load (only this transaction's statements) those triggers do not fire, and this
 * checks what they would have:
 * - every organization, sender, recipient and user named exists (the ids are few: a query each);
 * - every message in the import's id map was written; user_messages rows only name messages of
 *   that map (they are built from the same file's ids).
 * The rows named were all made by the import's own transaction, so no other transaction can
 * delete them meanwhile (which the checks' row locks were for). The messages' search vectors are
 * computed by the import itself (the trigger that would is not fired either).
 * Where the server's role may not set session_replication_role, the triggers check as before.
 */
export class DeferredKeyChecks {
  private readonly realms = new Set<number>();
  private readonly users = new Set<number>();
  private readonly recipients = new Set<number>();

  private constructor(readonly deferred: boolean) {}

  static async start(client: PoolClient): Promise<DeferredKeyChecks> {
    const { rows } = await client.query<{ allowed: boolean }>(
      `SELECT has_parameter_privilege('session_replication_role', 'SET') AS allowed`,
    );
    const deferred = at(rows, 0).allowed;
    if (deferred) await client.query('SET LOCAL session_replication_role = replica');
    return new DeferredKeyChecks(deferred);
  }

  /** Notes the users and recipients rows name, from their columns. */
  note(columns: string[], rows: CopyValue[][]) {
    if (!this.deferred) return;
    for (const [column, ids] of [
      ['realm_id', this.realms],
      ['sender_id', this.users],
      ['user_id', this.users],
      ['recipient_id', this.recipients],
    ] as const) {
      const i = columns.indexOf(column);
      if (i >= 0) for (const row of rows) ids.add(row[i] as number);
    }
  }

  /** Triggers back on; then the one check of everything loaded meanwhile. */
  async finish(client: PoolClient, messageMap: string): Promise<void> {
    if (!this.deferred) return;
    await client.query('SET LOCAL session_replication_role = origin');
    for (const [table, ids] of [
      ['realms', this.realms],
      ['users', this.users],
      ['recipients', this.recipients],
    ] as const) {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${table}" WHERE id = ANY($1::int[])`,
        [[...ids]],
      );
      const found = at(rows, 0).n;
      if (found !== ids.size) {
        throw new ImportError('messages', `messages name ${ids.size - found} missing ${table}`);
      }
    }
    const lost = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${messageMap} i
        WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = i.new_id)`,
    );
    const unwritten = at(lost.rows, 0).n;
    if (unwritten > 0) {
      throw new ImportError('messages', `${unwritten} messages were not written`);
    }
  }
}
