import { Prisma } from '../../generated/prisma/client';

interface DriverCause {
  kind?: string;
  originalCode?: string;
}

/**
 * Database refusals that only a client's input causes, with the message the client gets:
 * a number no column can hold (an ID past 2^31 - 1 or 2^63 - 1) or a value too long for an
 * index (PostgreSQL's 8 KiB index rows). Nothing can match such a value and the statement,
 * with its transaction, was aborted, so it is a 400, not the server's fault. Null otherwise.
 */
export function inputRefusedByDatabase(err: unknown): string | null {
  if (err instanceof Prisma.PrismaClientValidationError) {
    // Prisma checks 64-bit integers itself, before the query is sent.
    return /Unable to fit value .* into a 64-bit signed integer/.test(err.message)
      ? 'Number out of range'
      : null;
  }
  if (!(err instanceof Prisma.PrismaClientKnownRequestError)) return null;
  const cause = (err.meta?.driverAdapterError as { cause?: DriverCause } | undefined)?.cause;
  if (
    err.code === 'P2020' ||
    cause?.kind === 'ValueOutOfRange' ||
    cause?.originalCode === '22003'
  ) {
    return 'Number out of range';
  }
  if (cause?.originalCode === '54000') return 'Value too long';
  return null;
}
