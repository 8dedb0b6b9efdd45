// Generates the Prisma client. Generation needs no schema engine, but the Prisma CLI insists on
// one being present and would download it; this build has no route to that download, so it is
// pointed at a placeholder file (see "Database" in the architecture page).
const { execFileSync } = require('node:child_process');
const { chmodSync, existsSync, mkdirSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const placeholder = path.join(
  __dirname,
  '..',
  'node_modules',
  '.cache',
  'prisma-schema-engine-placeholder',
);
if (!existsSync(placeholder)) {
  mkdirSync(path.dirname(placeholder), { recursive: true });
  writeFileSync(placeholder, '#!/bin/sh\nexit 1\n');
  chmodSync(placeholder, 0o755);
}
execFileSync('npx', ['prisma', 'generate'], {
  stdio: 'inherit',
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: placeholder,
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
  },
});
