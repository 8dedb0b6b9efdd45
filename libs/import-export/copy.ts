import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** A value as COPY's text format writes it. */
export type CopyValue = string | number | bigint | boolean | Date | null | undefined | object;

/** COPY text format: backslash escapes for the characters that delimit fields and rows. */
function encode(value: CopyValue): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  const text =
    value instanceof Date
      ? value.toISOString()
      : typeof value === 'string'
        ? value
        : JSON.stringify(value);
  // eslint-disable-next-line no-control-regex -- NUL cannot be stored in text columns at all
  return text.replace(/\u0000/g, '').replace(/[\\\t\n\r]/g, (c) => ESCAPES[c] ?? c);
}

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * Bulk-loads rows into `table` with one COPY ... FROM STDIN on the caller's connection (so inside
 * its transaction). Rows are encoded as they are read, in chunks: an iterable of any length
 * streams through without being held.
 */
export async function copyRows(
  client: PoolClient,
  table: string,
  columns: readonly string[],
  rows: Iterable<readonly CopyValue[]> | AsyncIterable<readonly CopyValue[]>,
): Promise<number> {
  let count = 0;
  async function* lines(): AsyncGenerator<string> {
    let chunk = '';
    for await (const row of rows) {
      chunk += row.map(encode).join('\t') + '\n';
      count += 1;
      if (chunk.length > 1 << 16) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk) yield chunk;
  }
  const cols = columns.map((c) => `"${c}"`).join(', ');
  const sink = client.query(copyFrom(`COPY "${table}" (${cols}) FROM STDIN`));
  await pipeline(Readable.from(lines()), sink);
  return count;
}

/** `n` new ids from the table's own sequence, ascending: imported rows never collide with later ones. */
export async function allocateIds(client: PoolClient, table: string, n: number): Promise<number[]> {
  if (n === 0) return [];
  const { rows } = await client.query<{ id: string }>(
    `SELECT nextval(pg_get_serial_sequence($1, 'id'))::text AS id FROM generate_series(1, $2::int)`,
    [`"${table}"`, n],
  );
  return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}
