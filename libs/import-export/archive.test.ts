import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { unpackZip } from './archive';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'archive-test-'));
});
afterAll(() => rm(work, { recursive: true, force: true }));

/** A zip written by Python's zipfile, which stores any entry name it is given. */
function zip(file: string, entries: Record<string, number | string>): string {
  const target = path.join(work, file);
  const script = `
import sys, zipfile, json
with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
    for name, body in json.loads(sys.argv[2]).items():
        z.writestr(name, ('\\0' * body) if isinstance(body, int) else body)
`;
  execFileSync('python3', ['-c', script, target, JSON.stringify(entries)]);
  return target;
}

const limits = { maxBytes: 1024 * 1024, maxEntries: 100 };

describe('unpacking archives', () => {
  it('unpacks a plain zip', async () => {
    const dest = path.join(work, 'ok');
    await unpackZip(
      zip('ok.zip', { 'users.json': '[]', 'general/2024-01-01.json': '[]' }),
      dest,
      limits,
    );
    expect((await readdir(dest)).sort()).toEqual(['general', 'users.json']);
  });

  it.each([
    ['../evil.txt', 'dotdot.zip'],
    ['/etc/evil.txt', 'absolute.zip'],
    ['a/../../evil.txt', 'nested.zip'],
  ])('refuses an entry named %s (zip slip)', async (name, file) => {
    const dest = path.join(work, file);
    await expect(unpackZip(zip(file, { [name]: 'x' }), dest, limits)).rejects.toThrow(
      `${file}: entry ${JSON.stringify(name)} points outside the archive`,
    );
  });

  it('cuts off an archive that unpacks past the size limit (decompression bomb)', async () => {
    const bomb = zip('bomb.zip', { 'big.json': 20 * 1024 * 1024 });
    await expect(unpackZip(bomb, path.join(work, 'bomb'), limits)).rejects.toThrow(
      'bomb.zip: unpacks to more than the size limit (decompression bomb?)',
    );
  });
});
