import { execFile } from 'node:child_process';
import path from 'node:path';
import { TEST_REDIS_URL } from '../../test/harness';

/**
 * Issue 46: a tier's logs go where docs/operations.md says (stdout), and every line it writes is
 * JSON, Node's own warnings included. A real process, started as the tiers are.
 */
const ROOT = path.resolve(__dirname, '../..');

function run(env: Record<string, string>): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      path.join(ROOT, 'node_modules/.bin/tsx'),
      ['test/fixtures/log-lines.ts'],
      { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: '', ...env } },
      (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve({ stdout, stderr }),
    );
  });
}

it('writes JSON lines on stdout, nothing on stderr, Node warnings included', async () => {
  const { stdout, stderr } = await run({
    NODE_ENV: 'development',
    LOG_FORMAT: 'json',
    LOG_LEVEL: 'info',
    REDIS_URL: TEST_REDIS_URL,
  });
  expect(stderr).toBe('');
  const lines = stdout.trim().split('\n');
  const parsed = lines.map((line) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      return { notJson: line };
    }
  });
  expect(parsed.filter((l) => 'notJson' in l)).toEqual([]);
  expect(parsed).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ level: 'info', category: 'boot', message: 'a line of the tier' }),
      expect.objectContaining({
        level: 'warn',
        category: 'node',
        name: 'DeprecationWarning',
        code: 'DEP0999',
        message: 'an old way of doing it',
      }),
      expect.objectContaining({ level: 'warn', category: 'node', message: 'something odd' }),
    ]),
  );
}, 30000);
