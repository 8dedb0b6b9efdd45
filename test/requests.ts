import request from 'supertest';
import type { TestContext } from './harness';

export type Method = 'get' | 'post' | 'patch' | 'delete' | 'put';

/** Request parameters: the query string of a GET, the form-encoded body of the other methods. */
export type Form = Record<string, string | number | boolean>;

/** A supertest call to `/api/v1{path}` on an organization's host, form-encoded. */
export function api(
  t: TestContext,
  host: string,
  method: Method,
  path: string,
  auth: string | null,
  form?: Form,
): request.Test {
  let req = request(t.app)[method](`/api/v1${path}`).set('Host', host);
  if (auth) req = req.set('Authorization', auth);
  if (form) {
    const encoded = Object.fromEntries(Object.entries(form).map(([k, v]) => [k, String(v)]));
    req = method === 'get' ? req.query(encoded) : req.type('form').send(encoded);
  }
  return req;
}

/** `/api/v1` calls on one organization as one caller, one function per HTTP method. */
export type Client = Record<Method, (path: string, form?: Form) => request.Test>;

/**
 * A client of `host` that authenticates as clients do, with Basic auth of an email and API key
 * (`who.auth`, as `TestUser` holds it); `null` sends no credentials.
 */
export function client(t: TestContext, host: string, who: { auth: string } | null): Client {
  const call = (method: Method) => (path: string, form?: Form) =>
    api(t, host, method, path, who?.auth ?? null, form);
  return {
    get: call('get'),
    post: call('post'),
    patch: call('patch'),
    put: call('put'),
    delete: call('delete'),
  };
}
