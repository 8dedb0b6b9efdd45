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
  let errorLines: string[];
  const streams = console as unknown as { _stdout: unknown; _stderr: unknown };
  const saved = { stdout: streams._stdout, stderr: streams._stderr };
  const sink = (into: () => string[]) => ({
    write: (chunk: unknown) => {
      into().push(String(chunk));
      return true;
    },
  });

  beforeEach(() => {
    lines = [];
    errorLines = [];
    // winston's console transport writes to console._stdout and console._stderr, which jest's
    // console points both at its stderr: each gets a sink of its own here.
    streams._stdout = sink(() => lines);
    streams._stderr = sink(() => errorLines);
  });
  afterEach(() => {
    streams._stdout = saved.stdout;
    streams._stderr = saved.stderr;
  });

  it('writes on stdout, or on stderr when asked (the CLI, whose stdout is its answer)', () => {
    createLogger({ level: 'info', format: 'json' }).error('http', 'to stdout');
    createLogger({ level: 'info', format: 'json', stream: 'stderr' }).info('cli', 'to stderr');
    expect(lines.map((l) => (JSON.parse(l) as { message: string }).message)).toEqual(['to stdout']);
    expect(errorLines.map((l) => (JSON.parse(l) as { message: string }).message)).toEqual([
      'to stderr',
    ]);
  });

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
