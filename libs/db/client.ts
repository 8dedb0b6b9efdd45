import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../../generated/prisma/client';

export type Db = PrismaClient;
/** The client handed to code running inside `db.$transaction(async (tx) => ...)`. */
export type Tx = Omit<
  PrismaClient,
  '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'
>;

export function createDb(databaseUrl: string, options: { maxConnections?: number } = {}): Db {
  const adapter = new PrismaPg({
    connectionString: databaseUrl,
    max: options.maxConnections ?? 10,
  });
  // Outside production Prisma's default error format captures a stack trace on every query, to
  // point at the caller if the query fails; production runs 'minimal' already. The same
  // everywhere, so benchmarks and tests run what production runs.
  return new PrismaClient({ adapter, errorFormat: 'minimal' });
}
