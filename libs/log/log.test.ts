import { createLogger } from './create-logger';

/** Fields whose reads are counted: formatting a line reads them, dropping it must not. */
function watchedFields() {
  const seen = { reads: 0 };
  const fields = {
    get userId() {
      seen.reads++;
      return 7;
    },
  };
  return { seen, fields };
}

describe('createLogger', () => {
  let lines: string[];
  let write: jest.SpyInstance;

  beforeEach(() => {
    lines = [];
    // winston's console transport writes to console._stderr (process.stderr, but not in jest).
    const { _stderr: stderr } = console as unknown as { _stderr: NodeJS.WritableStream };
    write = jest.spyOn(stderr, 'write').mockImplementation((chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    });
  });
  afterEach(() => write.mockRestore());

  it('writes a JSON line at or above its level with the category and fields', () => {
    const log = createLogger({ level: 'info', format: 'json' });
    log.info('http', 'request', { status: 200 });
    log.child({ requestId: 'r1' }).warn('auth', 'refused');
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({ level: 'info', category: 'http', message: 'request', status: 200 }),
      expect.objectContaining({ level: 'warn', category: 'auth', requestId: 'r1' }),
    ]);
    expect(typeof JSON.parse(lines[0]).timestamp).toBe('string');
  });

  it('drops a line below its level before formatting it', () => {
    const log = createLogger({ level: 'warn', format: 'json' });
    const { seen, fields } = watchedFields();
    log.info('http', 'request', fields);
    log.child({ requestId: 'r1' }).debug('http', 'request', fields);
    expect(seen.reads).toBe(0);
    expect(lines).toEqual([]);
    log.error('http', 'failed', fields);
    expect(seen.reads).toBeGreaterThan(0);
    expect(lines).toHaveLength(1);
  });
});
