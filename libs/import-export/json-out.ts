import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';

/** A file written piece by piece, waiting whenever the disk is slower than the producer. */
export class JsonWriter {
  private readonly out: WriteStream;

  constructor(file: string) {
    this.out = createWriteStream(file);
  }

  async write(text: string): Promise<void> {
    if (!this.out.write(text)) await once(this.out, 'drain');
  }

  /** `"key": [rows...]`, each row on its own line, from an iterable of any length. */
  async array(
    key: string,
    rows: Iterable<unknown> | AsyncIterable<unknown>,
    first: boolean,
  ): Promise<number> {
    await this.write(`${first ? '' : ',\n'}${JSON.stringify(key)}: [`);
    let n = 0;
    for await (const row of rows) {
      await this.write(`${n === 0 ? '\n' : ',\n'}${JSON.stringify(row)}`);
      n += 1;
    }
    await this.write('\n]');
    return n;
  }

  async close(): Promise<void> {
    this.out.end();
    await finished(this.out);
  }
}
