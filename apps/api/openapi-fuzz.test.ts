import fc from 'fast-check';
import type request from 'supertest';
import { loadConfig } from '../../libs/config/load-config';
import type { AppContext } from '../../libs/core/context';
import { Role } from '../../libs/domain/users/roles';
import { makeUser, type TestUser } from '../../test/factories';
import type { TestContext } from '../../test/harness';
import {
  boundaryValue,
  documentedErrorCodes,
  encode,
  hostileWireValue,
  operations,
  validValue,
  type Operation,
  type Param,
} from '../../test/openapi-fuzz';
import { api } from '../../test/requests';
import { apiRouter } from './routes';
import { type Organization, organization } from '../../test/organization';

/**
 * Issue 11: every route the API tier serves, driven by Zulip's OpenAPI description with valid,
 * boundary and type-confused requests. No answer may be a 5xx, every error is Zulip's envelope
 * with a documented code, and a refused request leaves every table's row count as it was.
 * Bounded by a request count per route and a time budget, with a fixed seed, so CI can run it.
 */

// FUZZ_SEED explores other inputs locally; CI runs the fixed one.
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const RUNS_PER_ROUTE = 24;
const TIME_BUDGET_MS = 85_000;
/** Query strings stay under Node's 16 KiB header limit, which answers before any route does. */
const MAX_QUERY_VALUE = 3000;
const MAX_BODY_VALUE = 100_000;

/** Zulip's ErrorCode names for failures the description does not list by code. */
const ZULIP_ERROR_CODES = [
  'BAD_NARROW',
  'AUTHENTICATION_FAILED',
  'NONEXISTENT_SUBDOMAIN',
  'PASSWORD_AUTH_DISABLED',
  'UNAUTHORIZED_PRINCIPAL',
];

jest.setTimeout(TIME_BUDGET_MS + 60_000);

let t: TestContext;
let org: Organization;
let actor: TestUser;
let member: TestUser;
let guest: TestUser;
const fixtureIds: Record<string, (string | number)[]> = {};

interface Route {
  method: string;
  /** Express form: `/users/:user_id`. */
  path: string;
}

function servedRoutes(): Route[] {
  const ctx = { config: loadConfig({ NODE_ENV: 'test' }) } as AppContext;
  const routes: Route[] = [];
  for (const layer of apiRouter(ctx).stack as {
    route?: { path: string; methods: Record<string, boolean> };
  }[]) {
    if (!layer.route) continue;
    for (const method of Object.keys(layer.route.methods)) {
      routes.push({ method, path: layer.route.path });
    }
  }
  return routes;
}

const shape = (method: string, p: string) =>
  `${method.toUpperCase()} ${p.replace(/\{[^}]+\}|[:*][A-Za-z_]+/g, '{}')}`;

const call = (method: string, p: string, form?: Record<string, string | number>) =>
  api(t, org.host, method as 'get', p, actor.auth, form);

async function created(res: request.Response, field: string): Promise<number> {
  if (res.status !== 200) throw new Error(`fixture failed: ${JSON.stringify(res.body)}`);
  return res.body[field] as number;
}

/** Real objects for path parameters, so valid requests reach the handlers' deeper paths. */
async function makeFixtures() {
  const stream = await call('post', '/users/me/subscriptions', {
    subscriptions: JSON.stringify([{ name: 'fuzz' }]),
    principals: JSON.stringify([actor.user.id, member.user.id]),
  });
  if (stream.status !== 200) throw new Error(JSON.stringify(stream.body));
  const streamId = await created(
    await call('get', '/get_stream_id', { stream: 'fuzz' }),
    'stream_id',
  );
  const messageId = await created(
    await call('post', '/messages', { type: 'stream', to: streamId, topic: 'fuzz', content: 'hi' }),
    'id',
  );
  const groupId = await created(
    await call('post', '/user_groups/create', {
      name: 'fuzzers',
      description: 'fuzz',
      members: JSON.stringify([member.user.id]),
    }),
    'group_id',
  );
  const filterId = await created(
    await call('post', '/realm/filters', {
      pattern: '#(?P<id>[0-9]+)',
      url_template: 'https://example.com/{id}',
    }),
    'id',
  );
  const fieldId = await created(
    await call('post', '/realm/profile_fields', { name: 'Fuzz', field_type: 1 }),
    'id',
  );
  const draftIds = (
    await call('post', '/drafts', {
      drafts: JSON.stringify([{ type: 'stream', to: [streamId], topic: 'f', content: 'd' }]),
    })
  ).body.ids as number[];
  const scheduledId = await created(
    await call('post', '/scheduled_messages', {
      type: 'stream',
      to: streamId,
      topic: 'later',
      content: 'later',
      scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 86400,
    }),
    'scheduled_message_id',
  );
  const botId = await created(
    await call('post', '/bots', { full_name: 'Fuzz Bot', short_name: 'fuzzbot' }),
    'user_id',
  );
  const playgroundId = await created(
    await call('post', '/realm/playgrounds', {
      name: 'Py',
      pygments_language: 'Python',
      url_template: 'https://play.example/?c={code}',
    }),
    'id',
  );
  const inviteUrl = (await call('post', '/invites/multiuse', { invite_as: 400 })).body
    .invite_link as string | undefined;
  Object.assign(fixtureIds, {
    stream_id: [streamId],
    message_id: [messageId],
    user_id: [member.user.id, actor.user.id],
    muted_user_id: [member.user.id],
    user_id_or_email: [member.user.id, member.email],
    bot_id: [botId],
    user_group_id: [groupId],
    filter_id: [filterId],
    field_id: [fieldId],
    draft_id: draftIds ?? [],
    scheduled_message_id: [scheduledId],
    playground_id: [playgroundId],
    invite_id: [1],
    emoji_name: ['green_tick'],
    domain: ['example.com'],
    attachment_id: [1],
    realm_id_str: [String(org.realm.id)],
    filename: ['ab/cd/file.txt'],
  });
  expect(inviteUrl ?? '').toMatch(/^http/);
}

beforeAll(async () => {
  org = await organization({
    members: {
      member: { fullName: 'Fuzz Member' },
      guest: { role: 'guest', fullName: 'Fuzz Guest' },
    },
  });
  ({ t } = org);
  ({ member, guest } = org.users);
  actor = org.owner;
  await makeFixtures();
});
afterAll(() => org.close());

/** One count per table, in one query: a refused request must leave them all as they were. */
let countSql = '';
async function rowCounts(): Promise<Record<string, number>> {
  if (!countSql) {
    const tables = await t.db.$queryRaw<{ tablename: string }[]>`
      SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'`;
    countSql = `SELECT ${tables
      .map((r) => `(SELECT count(*) FROM "${r.tablename}")::int AS "${r.tablename}"`)
      .join(', ')}`;
  }
  const [row] = await t.db.$queryRawUnsafe<Record<string, number>[]>(countSql);
  return row;
}

interface FuzzRequest {
  kind:
    | 'valid'
    | 'boundary'
    | 'confused'
    | 'missing'
    | 'unknown'
    | 'unauthenticated'
    | 'as-member'
    | 'as-guest';
  path: string;
  fields: Record<string, string>;
}

const pathParamNames = (p: string) => [...p.matchAll(/[:*]([A-Za-z_]+)/g)].map((m) => m[1]);

function pathValue(name: string, maxLength: number): fc.Arbitrary<string> {
  const real = (fixtureIds[name] ?? []).map(String);
  return fc.oneof(
    { weight: 3, arbitrary: real.length ? fc.constantFrom(...real) : fc.constant('1') },
    { weight: 1, arbitrary: fc.nat({ max: 100000 }).map(String) },
    { weight: 2, arbitrary: hostileWireValue(maxLength) },
  );
}

function requestArb(route: Route, op: Operation | undefined): fc.Arbitrary<FuzzRequest> {
  const isGet = route.method === 'get';
  const maxLength = isGet ? MAX_QUERY_VALUE : MAX_BODY_VALUE;
  const params: Param[] = (op?.params ?? []).filter((p) => p.in !== 'path');
  const wire = (p: Param, value: unknown) => encode(p, value);
  const valid = fc.record(
    Object.fromEntries(
      params.map((p) => {
        const v = validValue(p.schema).map((x) => wire(p, x));
        return [p.name, p.required ? v : fc.option(v, { nil: undefined })];
      }),
    ),
  );
  const replaced = (pick: (p: Param) => fc.Arbitrary<string>) =>
    params.length
      ? fc.oneof(...params.map((p) => pick(p).map((w) => [p.name, w] as const)))
      : fc.constant(null);
  const boundary = replaced((p) => boundaryValue(p.schema).map((x) => wire(p, x)));
  const confused = replaced(() => hostileWireValue(maxLength));
  const paths = fc
    .tuple(...pathParamNames(route.path).map((n) => pathValue(n, 200)))
    .map((values) => {
      let i = 0;
      return route.path.replace(/[:*][A-Za-z_]+/g, () =>
        // Lone surrogates cannot be percent-encoded; a client would send U+FFFD.
        encodeURIComponent(Buffer.from(values[i++]).toString()).replace(/%2F/g, '/'),
      );
    });
  const required = params.filter((p) => p.required).map((p) => p.name);
  return fc
    .tuple(
      fc.constantFrom<FuzzRequest['kind']>(
        'valid',
        'valid',
        'boundary',
        'confused',
        'confused',
        'missing',
        'unknown',
        'unauthenticated',
        'as-member',
        'as-guest',
      ),
      valid,
      boundary,
      confused,
      paths,
      hostileWireValue(maxLength),
      fc.nat(),
    )
    .map(([kind, base, edge, wrong, path, extra, n]) => {
      const fields: Record<string, string> = {};
      for (const [k, v] of Object.entries(base)) if (v !== undefined) fields[k] = v as string;
      if (kind === 'boundary' && edge) fields[edge[0]] = edge[1];
      if (kind === 'confused' && wrong) fields[wrong[0]] = wrong[1];
      if (kind === 'missing' && required.length) delete fields[required[n % required.length]];
      if (kind === 'unknown') fields[`unknown_${n % 7}`] = extra;
      return { kind, path, fields };
    });
}

interface Failure {
  route: string;
  request: FuzzRequest;
  status: number;
  body: unknown;
  problem: string;
}

function envelopeProblem(status: number, body: unknown, codes: Set<string>): string | null {
  if (status >= 500) return 'server error';
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'not a JSON object';
  const b = body as Record<string, unknown>;
  if (typeof b.msg !== 'string') return 'no msg';
  if (status >= 400) {
    if (b.result !== 'error') return 'error status without result "error"';
    if (typeof b.code !== 'string' || !codes.has(b.code))
      return `undocumented code ${String(b.code)}`;
  } else if (b.result !== 'success') return 'success status without result "success"';
  return null;
}

const clip = (s: string) => (s.length > 120 ? `${s.slice(0, 120)}…(${s.length})` : s);

test('every served route survives valid, boundary and type-confused requests', async () => {
  const byShape = new Map(operations().map((op) => [shape(op.method, op.path), op]));
  const codes = new Set([...documentedErrorCodes(), ...ZULIP_ERROR_CODES]);
  const routes = servedRoutes();
  const deadline = Date.now() + TIME_BUDGET_MS;
  const failures: Failure[] = [];
  let requests = 0;
  let routesRun = 0;
  const statuses = new Map<number, number>();
  let counts = await rowCounts();

  for (const [i, route] of routes.entries()) {
    // Each route gets its share of the time left, so a slow machine fuzzes every route less
    // rather than leaving the last ones out.
    const routeDeadline = Date.now() + (deadline - Date.now()) / (routes.length - i);
    routesRun++;
    const op = byShape.get(shape(route.method, route.path));
    const samples = fc.sample(requestArb(route, op), { numRuns: RUNS_PER_ROUTE, seed: SEED + i });
    for (const [n, req] of samples.entries()) {
      if (n > 0 && Date.now() > routeDeadline) break;
      requests++;
      // Members and guests send valid requests too: permission paths are where lookups differ.
      const as = req.kind === 'as-member' ? member : req.kind === 'as-guest' ? guest : actor;
      const auth = req.kind === 'unauthenticated' ? 'Basic Zm9vOmJhcg==' : as.auth;
      const res = await api(t, org.host, route.method as 'get', req.path, auth, req.fields);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const label = `${route.method.toUpperCase()} ${route.path}`;
      const problem = envelopeProblem(res.status, res.body, codes);
      if (problem)
        failures.push({ route: label, request: req, status: res.status, body: res.body, problem });
      const after = await rowCounts();
      if (res.status >= 400) {
        const changed = Object.keys(after).filter((k) => after[k] !== counts[k]);
        if (changed.length) {
          failures.push({
            route: label,
            request: req,
            status: res.status,
            body: res.body,
            problem: `refused but changed ${changed.join(', ')}`,
          });
        }
      }
      counts = after;
      // A valid request may deactivate the acting user (the owner may deactivate the member);
      // carry on as a fresh one.
      if (res.status === 401 && req.kind !== 'unauthenticated') {
        const role = as === actor ? Role.OWNER : as === member ? Role.MEMBER : Role.GUEST;
        const fresh = await makeUser(t, org.realm, { role });
        if (as === actor) actor = fresh;
        else if (as === member) member = fresh;
        else guest = fresh;
        counts = await rowCounts();
      }
    }
  }

  const report = failures
    .slice(0, 40)
    .map(
      (f) =>
        `${f.problem}: ${f.route} [${f.request.kind}] ${clip(f.request.path)} ${clip(
          JSON.stringify(f.request.fields),
        )} -> ${f.status} ${clip(JSON.stringify(f.body))}`,
    );
  // Figures for docs/reliability.md.
  const tally = [...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`);
  process.stderr.write(
    `openapi fuzz: ${requests} requests over ${routesRun} routes (${tally.join(', ')})\n`,
  );
  expect(report).toEqual([]);
  expect(routesRun).toBe(routes.length);
});
