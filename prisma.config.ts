import { defineConfig, env } from 'prisma/config';

// `env()` throws when the variable is unset; fall back so `prisma generate`
// (which never connects) works without DATABASE_URL, e.g. in CI.
const databaseUrl = process.env.DATABASE_URL
  ? env('DATABASE_URL')
  : 'postgresql://postgres@127.0.0.1:5432/chat';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: {
    path: 'prisma/migrations',
  },
  datasource: {
    url: databaseUrl,
  },
});
