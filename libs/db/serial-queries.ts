import type { ClientBase } from 'pg';

type Query = ClientBase['query'];

/** pg-copy-streams and cursors hand `query` an object that drives the protocol itself. */
const isSubmittable = (arg: unknown): boolean =>
  typeof arg === 'object' &&
  arg !== null &&
  typeof (arg as { submit?: unknown }).submit === 'function';

/**
 * Makes a connection run the queries given to it one after another. Prisma's query interpreter
 * issues some of a transaction's queries before the previous one answered (and so would code
 * that runs `Promise.all` inside `$transaction`); node-postgres 8 queues such a query with a
 * DeprecationWarning ("client.query() when the client is already executing a query"), and 9 will
 * refuse it. Here each query waits for the one before it to settle, which is what the server does
 * anyway on one connection. Callback-style calls (the pool's own `pool.query`, on a connection it
 * hands nobody else) and submittables pass straight through.
 */
export function serialiseQueries(client: ClientBase): void {
  const run = client.query.bind(client) as (...args: unknown[]) => unknown;
  let tail: Promise<unknown> = Promise.resolve();
  const serial = (...args: unknown[]): unknown => {
    if (typeof args[args.length - 1] === 'function' || isSubmittable(args[0])) return run(...args);
    const result = tail.then(() => run(...args));
    tail = result.catch(() => undefined);
    return result;
  };
  client.query = serial as Query;
}
