import { Prisma } from '../../generated/prisma/client';

interface DriverCause {
  kind?: string;
  originalCode?: string;
}

/**
 * A number PostgreSQL cannot hold in the column it is compared with (an ID past 2^31 - 1, for
 * instance). Nothing can match it, and the statement (with its transaction) was aborted, so it
 * is the client's mistake, not the server's.
 */
export function isValueOutOfRange(err: unknown): boolean {
  if (!(err instanceof Prisma.PrismaClientKnownRequestError)) return false;
  if (err.code === 'P2020') return true;
  const cause = (err.meta?.driverAdapterError as { cause?: DriverCause } | undefined)?.cause;
  return cause?.kind === 'ValueOutOfRange' || cause?.originalCode === '22003';
}
