import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestContext, type TestContext } from './harness';

/** What an import test file works with: its server and a scratch directory for copies. */
export interface ImportTestBed {
  readonly t: TestContext;
  readonly work: string;
  /** A copy of the fixture under the scratch directory, with one file's text edited. */
  copy(name: string, edit?: { file: string; text: (text: string) => string }): Promise<string>;
}

/**
 * Starts a test context and a scratch directory before the file's tests and removes both after
 * them (registered with jest's beforeAll/afterAll where it is called).
 */
export function importTestBed(fixture: string): ImportTestBed {
  let t: TestContext | undefined;
  let work: string | undefined;
  beforeAll(async () => {
    t = await startTestContext();
    work = await mkdtemp(path.join(os.tmpdir(), `${path.basename(fixture)}-import-`));
  });
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
    await t?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the import test bed starts in beforeAll');
    return value;
  };
  return {
    get t() {
      return started(t);
    },
    get work() {
      return started(work);
    },
    async copy(name, edit) {
      const dir = path.join(started(work), name);
      await cp(fixture, dir, { recursive: true });
      if (edit) {
        const file = path.join(dir, edit.file);
        await writeFile(file, edit.text(await readFile(file, 'utf8')));
      }
      return dir;
    },
  };
}

/** A text edit that parses the file as JSON, changes it in place with `edit`, and writes it. */
export function editJson<T>(edit: (data: T) => void): (text: string) => string {
  return (text) => {
    const data = JSON.parse(text) as T;
    edit(data);
    return JSON.stringify(data);
  };
}
