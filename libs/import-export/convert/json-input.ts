import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import readline from 'node:readline';
import { chain } from 'stream-chain';
import { parser } from 'stream-json';
import { streamArray } from 'stream-json/streamers/StreamArray';
import { ImportError } from '../errors';

export type JsonRecord = Record<string, unknown>;

const isRecord = (value: unknown): value is JsonRecord =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Files up to this size are parsed whole (JSON.parse is several times faster than streaming). */
const WHOLE_FILE_BYTES = 16 << 20;

/**
 * The objects of a file holding one JSON array, one at a time: a small file parsed whole, a
 * larger one streamed (never held whole). `name` is how errors call the file; a malformed one
 * names the record where parsing stopped (found by streaming it).
 */
export async function* jsonArrayRecords(
  file: string,
  name: string,
): AsyncGenerator<{ index: number; record: JsonRecord }> {
  const size = (await stat(file)).size;
  let whole: unknown = undefined;
  if (size <= WHOLE_FILE_BYTES) {
    try {
      whole = JSON.parse(await readFile(file, 'utf8'));
    } catch {
      // Streamed below, which names the record where it stops.
    }
  }
  if (Array.isArray(whole)) {
    for (const [index, record] of whole.entries()) {
      if (!isRecord(record)) throw new ImportError(name, 'not an object', `[${index}]`);
      yield { index, record };
    }
    return;
  }
  yield* streamedRecords(file, name);
}

async function* streamedRecords(
  file: string,
  name: string,
): AsyncGenerator<{ index: number; record: JsonRecord }> {
  let index = -1;
  const records = chain([createReadStream(file), parser(), streamArray()]);
  try {
    for await (const item of records as AsyncIterable<{ key: number; value: unknown }>) {
      index = item.key;
      if (!isRecord(item.value)) throw new ImportError(name, 'not an object', `[${index}]`);
      yield { index, record: item.value };
    }
  } catch (err) {
    records.destroy();
    if (err instanceof ImportError) throw err;
    const message = (err as Error).message.split('\n')[0];
    throw new ImportError(name, `malformed JSON (${message})`, `[${index + 1}]`);
  }
}

/** Whether `file` exists and is a regular file. */
export async function isFile(file: string): Promise<boolean> {
  return (await stat(file).catch(() => null))?.isFile() ?? false;
}

/**
 * The objects of a JSON Lines file, one line at a time. A malformed line names its number.
 */
export async function* jsonLines(
  file: string,
  name: string,
): AsyncGenerator<{ line: number; record: JsonRecord }> {
  const lines = readline.createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line += 1;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      lines.close();
      throw new ImportError(name, `malformed JSON (${(err as Error).message})`, `line ${line}`);
    }
    if (!isRecord(value)) throw new ImportError(name, 'not an object', `line ${line}`);
    yield { line, record: value };
  }
}
