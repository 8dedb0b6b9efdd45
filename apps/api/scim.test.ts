import request from 'supertest';
import { cliEnv, cliJson } from '../../test/cli';
import { makeRealm, makeUser, type TestRealm } from '../../test/factories';
import { startTestContext, type TestContext } from '../../test/harness';

/**
 * SCIM 2.0 provisioning over HTTP against the real database: the bearer token from the
 * `create-scim-token` command, Users create / read / list with filter and paging / replace /
 * patch (deactivation included), the discovery documents, and the SCIM Error on every refusal.
 */
let t: TestContext;
let org: TestRealm;
let other: TestRealm;
let token: string;
let okta: string;

const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';

beforeAll(async () => {
  t = await startTestContext();
  org = await makeRealm(t, { stringId: 'acme' });
  other = await makeRealm(t, { stringId: 'other' });
  const issued = await cliJson<{ bearer_token: string; base_url: string }>(
    ['create-scim-token', '--realm', 'acme', '--client', 'azure'],
    cliEnv(t.config),
  );
  expect(issued.base_url).toBe('http://acme.chat.test/scim/v2');
  token = issued.bearer_token;
  okta = (
    await cliJson<{ bearer_token: string }>(
      ['create-scim-token', '--realm', 'acme', '--client', 'okta', '--given-family-names'],
      cliEnv(t.config),
    )
  ).bearer_token;
}, 180_000);
afterAll(() => t.close());

const scim = (method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string, bearer = token) =>
  request(t.app)
    [method](`/scim/v2${path}`)
    .set('Host', org.host)
    .set('Authorization', `Bearer ${bearer}`)
    .set('Content-Type', 'application/scim+json');

/** The fields of SCIM answers the tests read. */
interface ScimBody {
  id: string;
  detail: string;
  scimType: string;
  totalResults: number;
  name: unknown;
  displayName: string;
  active: boolean;
  Resources: { id: string; attributes: { name: string }[] }[];
}
const b = (res: request.Response) => res.body as ScimBody;

const expectScimError = (res: request.Response, status: number, scimType?: string) => {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/scim\+json/);
  expect(res.body).toMatchObject({ schemas: [ERROR], status: String(status) });
  expect(typeof b(res).detail).toBe('string');
  if (scimType) expect(b(res).scimType).toBe(scimType);
};

const newUser = (userName: string, extra: Record<string, unknown> = {}) => ({
  schemas: [USER],
  userName,
  name: { formatted: 'Nia New' },
  active: true,
  ...extra,
});

describe('authentication', () => {
  it('refuses a missing, wrong or other organization’s token, in SCIM’s form', async () => {
    const missing = await request(t.app).get('/scim/v2/Users').set('Host', org.host);
    expectScimError(missing, 401);
    expect(missing.headers['www-authenticate']).toMatch(/^Bearer/);
    expectScimError(await scim('get', '/Users', 'scim_not-a-token'), 401);
    const elsewhere = await request(t.app)
      .get('/scim/v2/Users')
      .set('Host', other.host)
      .set('Authorization', `Bearer ${token}`);
    expectScimError(elsewhere, 401);
  });

  it('keeps only a hash of the token', async () => {
    const clients = await t.db.scimClient.findMany({ where: { realmId: org.realm.id } });
    expect(clients.map((c) => c.name).sort()).toEqual(['azure', 'okta']);
    for (const client of clients) {
      expect(client.tokenHash).toMatch(/^[0-9a-f]{64}$/);
      expect(client.tokenHash).not.toContain(token);
    }
  });
});

describe('Users', () => {
  it('creates, reads and finds a user by userName', async () => {
    const created = await scim('post', '/Users').send(
      newUser('Nia@Acme.example', { role: 'moderator' }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      schemas: [USER],
      userName: 'nia@acme.example',
      name: { formatted: 'Nia New' },
      displayName: 'Nia New',
      active: true,
      role: 'moderator',
      meta: {
        resourceType: 'User',
        location: `http://acme.chat.test/scim/v2/Users/${b(created).id}`,
      },
    });
    const row = await t.db.user.findUniqueOrThrow({ where: { id: Number(b(created).id) } });
    expect(row).toMatchObject({
      realmId: org.realm.id,
      deliveryEmail: 'nia@acme.example',
      role: 300,
    });

    const read = await scim('get', `/Users/${b(created).id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const found = await scim(
      'get',
      `/Users?filter=${encodeURIComponent('userName eq "NIA@acme.example"')}`,
    );
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: 1,
      itemsPerPage: 1,
      startIndex: 1,
    });
    expect(b(found).Resources[0].id).toBe(b(created).id);
    const none = await scim(
      'get',
      `/Users?filter=${encodeURIComponent('userName eq "nobody@acme.example"')}`,
    );
    expect(none.body).toMatchObject({ totalResults: 0, Resources: [] });
  });

  it('pages with startIndex and count, people only, in id order', async () => {
    for (let i = 0; i < 3; i++) await makeUser(t, org.realm, { email: `page${i}@acme.example` });
    const all = await scim('get', '/Users');
    const total = b(all).totalResults;
    expect(total).toBe(await t.db.user.count({ where: { realmId: org.realm.id, isBot: false } }));
    const ids = (b(all).Resources as { id: string }[]).map((r) => Number(r.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const page = await scim('get', '/Users?startIndex=2&count=2');
    expect(page.body).toMatchObject({ totalResults: total, itemsPerPage: 2, startIndex: 2 });
    expect((b(page).Resources as { id: string }[]).map((r) => Number(r.id))).toEqual(
      ids.slice(1, 3),
    );
    const counted = await scim('get', '/Users?count=0');
    expect(counted.body).toMatchObject({ totalResults: total, itemsPerPage: 0, Resources: [] });
  });

  it('writes given and family names for a client without name.formatted (Okta)', async () => {
    const created = await scim('post', '/Users', okta).send({
      schemas: [USER],
      userName: 'okta.user@acme.example',
      name: { givenName: 'Ola', familyName: 'van Okta' },
      active: true,
    });
    expect(created.status).toBe(201);
    expect(b(created).name).toEqual({ givenName: 'Ola', familyName: 'van Okta' });
    expect(b(created).displayName).toBe('Ola van Okta');
  });

  it('replaces a user with PUT: name, address and role', async () => {
    const user = await makeUser(t, org.realm, { email: 'put@acme.example', fullName: 'Pat Put' });
    const res = await scim('put', `/Users/${user.user.id}`).send(
      newUser('put2@acme.example', { name: { formatted: 'Pat Replaced' }, role: 'guest' }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      userName: 'put2@acme.example',
      displayName: 'Pat Replaced',
      role: 'guest',
    });
    const row = await t.db.user.findUniqueOrThrow({ where: { id: user.user.id } });
    expect(row).toMatchObject({
      deliveryEmail: 'put2@acme.example',
      fullName: 'Pat Replaced',
      role: 600,
    });
  });

  it('deactivates with PATCH active:false and reactivates with a path-less replace', async () => {
    const user = await makeUser(t, org.realm, { email: 'leaver@acme.example' });
    const off = await scim('patch', `/Users/${user.user.id}`).send({
      schemas: [PATCH],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    expect(off.status).toBe(200);
    expect(b(off).active).toBe(false);
    expect((await t.db.user.findUniqueOrThrow({ where: { id: user.user.id } })).isActive).toBe(
      false,
    );
    const api = await request(t.app)
      .get('/api/v1/users/me')
      .set('Host', org.host)
      .set('Authorization', user.auth);
    expect(api.status).toBe(401);

    const on = await scim('patch', `/Users/${user.user.id}`).send({
      schemas: [PATCH],
      Operations: [{ op: 'Replace', value: { active: true, 'name.formatted': 'Back Again' } }],
    });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ active: true, displayName: 'Back Again' });
  });
});

describe('refusals leave nothing changed', () => {
  const users = () => t.db.user.count({ where: { realmId: org.realm.id } });

  it('an address already in use is a uniqueness conflict', async () => {
    const before = await users();
    expectScimError(await scim('post', '/Users').send(newUser(org.owner.email)), 409, 'uniqueness');
    const user = await makeUser(t, org.realm, { email: 'keep@acme.example' });
    const res = await scim('patch', `/Users/${user.user.id}`).send({
      schemas: [PATCH],
      Operations: [{ op: 'replace', path: 'userName', value: org.owner.email }],
    });
    expectScimError(res, 409, 'uniqueness');
    expect((await t.db.user.findUniqueOrThrow({ where: { id: user.user.id } })).deliveryEmail).toBe(
      'keep@acme.example',
    );
    expect(await users()).toBe(before + 1);
  });

  it("the organization's domains hold", async () => {
    await t.db.realm.update({
      where: { id: org.realm.id },
      data: { emailsRestrictedToDomains: true },
    });
    await t.db.realmDomain.create({
      data: { realmId: org.realm.id, domain: 'acme.example', allowSubdomains: false },
    });
    try {
      const before = await users();
      const res = await scim('post', '/Users').send(newUser('someone@elsewhere.example'));
      expectScimError(res, 400, 'invalidValue');
      expect(b(res).detail).toContain("isn't allowed");
      expect(await users()).toBe(before);
      expect((await scim('post', '/Users').send(newUser('inside@acme.example'))).status).toBe(201);
    } finally {
      await t.db.realm.update({
        where: { id: org.realm.id },
        data: { emailsRestrictedToDomains: false },
      });
    }
  });

  it('bad bodies, filters, values and unknown users', async () => {
    const before = await users();
    expectScimError(
      await scim('post', '/Users').send(newUser('x@acme.example', { active: false })),
      400,
    );
    expectScimError(
      await scim('post', '/Users').send({
        schemas: [USER],
        userName: 'x@acme.example',
        active: true,
      }),
      400,
    );
    expectScimError(
      await scim('post', '/Users').send(newUser('not an address')),
      400,
      'invalidValue',
    );
    expectScimError(
      await scim('post', '/Users').send(newUser('x@acme.example', { role: 'emperor' })),
      400,
      'invalidValue',
    );
    expectScimError(await scim('post', '/Users').send('{"userName": '), 400, 'invalidSyntax');
    expectScimError(
      await scim('get', `/Users?filter=${encodeURIComponent('emails co "acme"')}`),
      400,
      'invalidFilter',
    );
    expectScimError(await scim('get', '/Users?startIndex=abc'), 400, 'invalidValue');
    expectScimError(await scim('get', '/Users/999999'), 404);
    expectScimError(await scim('get', `/Users/${(await makeUser(t, other.realm)).user.id}`), 404);
    expectScimError(await scim('get', '/Groups'), 404);
    const target = org.owner.user.id;
    expectScimError(
      await scim('patch', `/Users/${target}`).send({ Operations: [] }),
      400,
      'invalidSyntax',
    );
    expectScimError(
      await scim('patch', `/Users/${target}`).send({
        schemas: [PATCH],
        Operations: [{ op: 'add', path: 'emails', value: [] }],
      }),
      501,
    );
    // The only owner stays: deactivating them is refused like any administrator's attempt.
    const refused = await scim('patch', `/Users/${target}`).send({
      schemas: [PATCH],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    expectScimError(refused, 400);
    expect((await t.db.user.findUniqueOrThrow({ where: { id: target } })).isActive).toBe(true);
    const deleted = await scim('delete', `/Users/${target}`);
    expectScimError(deleted, 400);
    expect(b(deleted).detail).toContain('DELETE operation not supported');
    expect(await users()).toBe(before);
  });

  it('a revoked token stops working at once', async () => {
    const env = cliEnv(t.config);
    const extra = await cliJson<{ bearer_token: string }>(
      ['create-scim-token', '--realm', 'acme', '--client', 'spare'],
      env,
    );
    expect((await scim('get', '/ServiceProviderConfig', extra.bearer_token)).status).toBe(200);
    await cliJson(['revoke-scim-token', '--realm', 'acme', '--client', 'spare'], env);
    expectScimError(await scim('get', '/ServiceProviderConfig', extra.bearer_token), 401);
  }, 120_000);
});

describe('discovery', () => {
  it('ServiceProviderConfig, ResourceTypes and Schemas describe the User resource', async () => {
    const config = await scim('get', '/ServiceProviderConfig');
    expect(config.status).toBe(200);
    expect(config.body).toMatchObject({
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true },
      authenticationSchemes: [{ type: 'oauthbearertoken' }],
    });
    const types = await scim('get', '/ResourceTypes');
    expect(b(types).Resources).toEqual([
      expect.objectContaining({ id: 'User', endpoint: '/Users', schema: USER }),
    ]);
    const schemas = await scim('get', '/Schemas');
    const attributes = (b(schemas).Resources[0].attributes as { name: string }[]).map(
      (a) => a.name,
    );
    expect(attributes).toEqual(expect.arrayContaining(['userName', 'name', 'active', 'role']));
  });
});
