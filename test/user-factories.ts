import request from 'supertest';
import type { TestContext } from './harness';

export interface RecordedEvent {
  event: { type: string; [field: string]: unknown };
  users: number[];
}

/** The highest outbox row ID so far; pass it to `eventsAfter` to see what an action emitted. */
export async function outboxMark(t: TestContext): Promise<bigint> {
  const last = await t.db.outboxEvent.findFirst({ orderBy: { id: 'desc' }, select: { id: true } });
  return last?.id ?? 0n;
}

/** Events written to the outbox after `mark`, oldest first. */
export async function eventsAfter(t: TestContext, mark: bigint): Promise<RecordedEvent[]> {
  const rows = await t.db.outboxEvent.findMany({
    where: { id: { gt: mark } },
    orderBy: { id: 'asc' },
  });
  return rows.map((row) => ({
    event: row.eventJson as RecordedEvent['event'],
    users: row.usersJson as number[],
  }));
}

type Method = 'get' | 'post' | 'patch' | 'delete' | 'put';

/** A supertest call to `/api/v1{path}` on an organization's host, form-encoded. */
export function api(
  t: TestContext,
  host: string,
  method: Method,
  path: string,
  auth: string | null,
  form?: Record<string, string | number | boolean>,
): request.Test {
  let req = request(t.app)[method](`/api/v1${path}`).set('Host', host);
  if (auth) req = req.set('Authorization', auth);
  if (form) {
    const encoded = Object.fromEntries(Object.entries(form).map(([k, v]) => [k, String(v)]));
    req = method === 'get' ? req.query(encoded) : req.type('form').send(encoded);
  }
  return req;
}
