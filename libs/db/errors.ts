import { types } from 'node:util';
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

/**
 * A wait for a pooled connection that ran out of time: Prisma's P2028 on a transaction that
 * could not start in its `maxWait`, or node-postgres's pool past its `connectionTimeoutMillis`.
 * Every pooled connection stayed busy that long, the request did nothing, and the process is
 * past capacity.
 */
export function connectionWaitTimedOut(err: unknown): boolean {
  if (!types.isNativeError(err)) return false;
  if ((err as { code?: unknown }).code === 'P2028') {
    return /Unable to start a transaction in the given time/.test(err.message);
  }
  return err.message === 'timeout exceeded when trying to connect';
}

/** Prisma's codes for a database it cannot reach, that hung up, or a pool with no connection. */
const UNREACHABLE_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
/** The driver adapter's kinds for the same, and for a database that does not exist (yet). */
const UNREACHABLE_KINDS = new Set([
  'DatabaseNotReachable',
  'DatabaseDoesNotExist',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
]);

/** The adapter's kinds for the socket errors node-postgres passes on, and for 53300. */
const SOCKET_KINDS: Record<string, string> = {
  ECONNREFUSED: 'DatabaseNotReachable',
  ENOTFOUND: 'DatabaseNotReachable',
  ECONNRESET: 'ConnectionClosed',
  ETIMEDOUT: 'SocketTimeout',
  53300: 'TooManyConnections',
};

/**
 * Whether a failure is PostgreSQL being unreachable rather than the query: down, restarting
 * (57P01 administrator shutdown, 57P02 crash shutdown, 57P03 starting up or shutting down), out
 * of connections, a connection lost mid-query (class 08; node-postgres's own messages when a
 * connection it held broke), or the configured database missing (3D000: not created or restored
 * yet). None of them is the request's fault, and each passes once the operator acts.
 */
export function databaseUnreachable(err: unknown): boolean {
  if (err instanceof Prisma.PrismaClientInitializationError) return true;
  // Not `instanceof Error`: node-postgres passes on socket errors made by Node itself, which
  // belong to another realm when this code runs in one of its own (jest's).
  if (!types.isNativeError(err)) return false;
  let cause: DriverCause | undefined;
  if (err instanceof Prisma.PrismaClientKnownRequestError) {
    if (UNREACHABLE_CODES.has(err.code)) return true;
    cause = (err.meta?.driverAdapterError as { cause?: DriverCause } | undefined)?.cause;
  } else if (err.name === 'DriverAdapterError') {
    // The adapter's own error, which Prisma passes on unwrapped when BEGIN or COMMIT fails.
    cause = err.cause as DriverCause | undefined;
  } else if ((err as NodeJS.ErrnoException).code) {
    // node-postgres's own error, from plain SQL (`sqlPool`): PostgreSQL's code, or the socket's,
    // which the adapter would have turned into one of the kinds above.
    const { code } = err as NodeJS.ErrnoException & { code: string };
    cause = { kind: SOCKET_KINDS[code], originalCode: code };
  }
  return (
    UNREACHABLE_KINDS.has(cause?.kind ?? '') ||
    /^(57P0[123]|08|3D000)/.test(cause?.originalCode ?? '') ||
    /^(Client has encountered a connection error|Connection terminated)/.test(err.message)
  );
}

interface ConstraintCause extends DriverCause {
  constraint?: { index?: string; fields?: string[] };
}

/** The driver adapter's account of a failed statement, whichever error carries it. */
function causeOf(err: Error): ConstraintCause | undefined {
  if (err instanceof Prisma.PrismaClientKnownRequestError) {
    return (err.meta?.driverAdapterError as { cause?: ConstraintCause } | undefined)?.cause;
  }
  if (err.name === 'DriverAdapterError') return err.cause as ConstraintCause | undefined;
  return undefined;
}

/**
 * PostgreSQL's SQLSTATE of a failed statement: from Prisma (its driver adapter's cause, or the
 * code Prisma gave it), or from node-postgres's own error on plain SQL (`sqlPool`).
 */
export function sqlState(err: unknown): string | undefined {
  if (!types.isNativeError(err)) return undefined;
  const cause = causeOf(err);
  if (cause?.originalCode) return cause.originalCode;
  if (cause?.kind === 'UniqueConstraintViolation') return '23505';
  if (cause?.kind === 'TransactionWriteConflict') return '40001';
  if (err instanceof Prisma.PrismaClientKnownRequestError) {
    if (err.code === 'P2002') return '23505';
    if (err.code === 'P2034') return '40001';
    return undefined;
  }
  const { code } = err as { code?: unknown };
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * A deadlock (40P01) or a serialization failure (40001): the transaction lost a race with
 * another one, did nothing, and may simply run again.
 */
export const transactionConflict = (err: unknown): boolean => {
  const state = sqlState(err);
  return state === '40P01' || state === '40001';
};

/**
 * A unique violation (23505) of `constraint`: a concurrent request wrote the same key first.
 * Only that constraint counts, so that any other failure still reports itself.
 */
export function uniqueViolation(err: unknown, constraint: string): boolean {
  if (sqlState(err) !== '23505' || !types.isNativeError(err)) return false;
  const named =
    causeOf(err)?.constraint?.index ?? (err as { constraint?: unknown }).constraint ?? undefined;
  return typeof named === 'string' ? named === constraint : err.message.includes(constraint);
}
