import type { PoolClient } from 'pg';

export interface Column {
  name: string;
  type: 'timestamp' | 'json' | 'boolean' | 'integer' | 'bigint' | 'text' | 'other';
  nullable: boolean;
  hasDefault: boolean;
}

const TYPES: Record<string, Column['type']> = {
  'timestamp with time zone': 'timestamp',
  'timestamp without time zone': 'timestamp',
  jsonb: 'json',
  json: 'json',
  boolean: 'boolean',
  integer: 'integer',
  smallint: 'integer',
  bigint: 'bigint',
  text: 'text',
  'character varying': 'text',
};

/** The table's columns as the database has them, in their order. */
export async function tableColumns(client: PoolClient, table: string): Promise<Column[]> {
  const { rows } = await client.query<{
    column_name: string;
    data_type: string;
    is_nullable: string;
    column_default: string | null;
  }>(
    `SELECT column_name, data_type, is_nullable, column_default FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
    [table],
  );
  return rows.map((r) => ({
    name: r.column_name,
    type: TYPES[r.data_type] ?? 'other',
    nullable: r.is_nullable === 'YES',
    hasDefault: r.column_default !== null,
  }));
}

/**
 * Zulip's exports write times as float seconds since the epoch. Microseconds survive: seconds
 * with six decimals are exact enough in a double for any date of this era.
 */
export function secondsToTimestamp(value: number): string {
  const micros = Math.round(value * 1e6);
  const ms = Math.floor(micros / 1000);
  const rest = micros - ms * 1000;
  const iso = new Date(ms).toISOString(); // 2026-11-28T09:00:00.123Z
  return `${iso.slice(0, 23)}${String(rest).padStart(3, '0')}Z`;
}

/** The SQL that reads a column as the export writes it. */
export function exportExpression(column: Column, alias = 't'): string {
  const ref = `${alias}."${column.name}"`;
  if (column.type === 'timestamp') return `extract(epoch FROM ${ref})::float8 AS "${column.name}"`;
  if (column.type === 'bigint') return `${ref}::float8 AS "${column.name}"`;
  if (column.type === 'other') return `${ref}::text AS "${column.name}"`;
  return ref;
}
