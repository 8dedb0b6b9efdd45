// Compiles the apps to JavaScript in dist/ (tsc, no bundler), bundles the web client, and copies the files they read at run
// time beside them: the static files the API serves, the SQL migrations the runner applies and the
// events tier's Redis scripts.
const { execFileSync } = require('node:child_process');
const { cpSync, rmSync } = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const dist = path.join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
  {
    cwd: root,
    stdio: 'inherit',
  },
);
for (const dir of ['apps/api/static', 'prisma/migrations', 'libs/events/scripts']) {
  cpSync(path.join(root, dir), path.join(dist, dir), { recursive: true });
}
// The web client (apps/web), bundled by Vite into dist/apps/web, which the API tier serves at `/`.
execFileSync(
  process.execPath,
  [
    path.join(root, 'node_modules/vite/bin/vite.js'),
    'build',
    '--config',
    'apps/web/vite.config.mts',
    '--logLevel',
    'warn',
  ],
  { cwd: root, stdio: 'inherit' },
);
