import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { Organization } from '../organization';
import type { Form, Method } from '../requests';

/** How many requests each race sends at once (issue 42: at least 20). */
export const RACE_SIZE = 20;

/**
 * The overload guard would refuse part of a race with 503 (20 requests against the tests' five
 * pooled connections): raised so that every request reaches the code under test.
 */
export const RACE_ENV = { OVERLOAD_DB_WAITING_LIMIT: '1000' };

/** An answer as a race keeps it: the status and the parsed body. */
export interface Answer {
  status: number;
  body: { result?: string; msg?: string; code?: string; [field: string]: unknown };
}

/** One request of a race. */
export interface RaceCall {
  who: { auth: string };
  method: Method;
  path: string;
  form?: Form;
}

/**
 * The organization's app on a real listening socket, so a race's requests overlap in one server
 * as clients' do (supertest on the bare app starts a server per request).
 */
export interface RaceServer {
  /** Sends every call at the same moment and waits for every answer, in the calls' order. */
  race(calls: RaceCall[]): Promise<Answer[]>;
  close(): Promise<void>;
}

export async function raceServer(org: Organization): Promise<RaceServer> {
  const server: Server = createServer(org.t.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const send = async ({ who, method, path, form }: RaceCall): Promise<Answer> => {
    let req = request(base)
      [method](`/api/v1${path}`)
      .set('Host', org.host)
      .set('Authorization', who.auth);
    if (form) {
      const encoded = Object.fromEntries(Object.entries(form).map(([k, v]) => [k, String(v)]));
      req = method === 'get' ? req.query(encoded) : req.type('form').send(encoded);
    }
    const res = await req;
    return { status: res.status, body: res.body as Answer['body'] };
  };
  return {
    race: (calls) => Promise.all(calls.map(send)),
    close: () => new Promise((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}

/** The answers at or above 500, with their bodies, so a failure shows what went wrong. */
export const serverErrors = (answers: Answer[]) =>
  answers.filter((a) => a.status >= 500).map((a) => ({ status: a.status, body: a.body }));
