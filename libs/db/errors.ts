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

/** Prisma's codes for a database it cannot reach, that hung up, or a pool with no connection. */
const UNREACHABLE_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
/** The driver adapter's kinds for the same. */
const UNREACHABLE_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
]);

/**
 * Whether a failure is PostgreSQL being unreachable rather than the query: down, restarting
 * (57P01 administrator shutdown, 57P02 crash shutdown, 57P03 starting up or shutting down), out
 * of connections, or a connection lost mid-query (class 08; node-postgres's own messages when a
 * connection it held broke).
 */
export function databaseUnreachable(err: unknown): boolean {
  if (err instanceof Prisma.PrismaClientInitializationError) return true;
  if (!(err instanceof Error)) return false;
  let cause: DriverCause | undefined;
  if (err instanceof Prisma.PrismaClientKnownRequestError) {
    if (UNREACHABLE_CODES.has(err.code)) return true;
    cause = (err.meta?.driverAdapterError as { cause?: DriverCause } | undefined)?.cause;
  } else if (err.name === 'DriverAdapterError') {
    // The adapter's own error, which Prisma passes on unwrapped when BEGIN or COMMIT fails.
    cause = err.cause as DriverCause | undefined;
  }
  return (
    UNREACHABLE_KINDS.has(cause?.kind ?? '') ||
    /^(57P0[123]|08)/.test(cause?.originalCode ?? '') ||
    /^(Client has encountered a connection error|Connection terminated)/.test(err.message)
  );
}
