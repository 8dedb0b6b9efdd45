import request from 'supertest';
import { makeRealm } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { expectOpenApiResponse } from '../../../test/openapi';
import { FEATURE_LEVEL } from '../../../libs/domain/version';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;

beforeAll(async () => {
  org = await organization({ realm: { name: 'Acme Corp' } });
  ({ t } = org);
  await t.db.realm.update({
    where: { id: org.realm.id },
    data: { description: 'We **build** things' },
  });
});
afterAll(() => org.close());

// Fields newer than the OpenAPI reference (feature level 247), from the spec.
const NEWER = ['realm_url', 'service_feature_level', 'service_version', 'service_merge_base'];

describe('GET /server_settings', () => {
  it('answers without an ETag: no Zulip client revalidates JSON, and hashing cost every answer', async () => {
    const res = await org.as(null).get('/server_settings');
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBeUndefined();
  });

  it('needs no authentication and describes the organization of the host', async () => {
    const res = await org.as(null).get('/server_settings');
    expect(res.status).toBe(200);
    expectOpenApiResponse('/server_settings', 'get', res.body, { newerFields: NEWER });
    expect(res.body).toMatchObject({
      result: 'success',
      zulip_feature_level: FEATURE_LEVEL,
      service_feature_level: FEATURE_LEVEL,
      realm_name: 'Acme Corp',
      realm_url: `http://${org.host}`,
      realm_uri: `http://${org.host}`,
      realm_description: '<p>We <strong>build</strong> things</p>',
      realm_web_public_access_enabled: false,
      email_auth_enabled: true,
      require_email_format_usernames: true,
      push_notifications_enabled: false,
      is_incompatible: false,
      external_authentication_methods: [],
    });
    expect(res.body.zulip_version).toBe(res.body.service_version);
    expect(res.body.zulip_merge_base).toBe(res.body.service_merge_base);
    expect(Object.keys(res.body.authentication_methods).sort()).toEqual(
      [
        'apple',
        'azuread',
        'dev',
        'email',
        'github',
        'gitlab',
        'google',
        'ldap',
        'openid connect',
        'password',
        'remoteuser',
        'saml',
      ].sort(),
    );
    expect(res.body.realm_icon).toMatch(
      /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon/,
    );
  });

  it('describes the only organization on any host it answers on (issue 14)', async () => {
    for (const host of ['localhost:9991', '127.0.0.1', '192.168.1.5:9991', 'chat.example.org']) {
      const res = await request(t.app).get('/api/v1/server_settings').set('Host', host);
      expect({ host, body: res.body }).toMatchObject({
        host,
        body: {
          realm_url: `http://${org.host}`,
          realm_uri: `http://${org.host}`,
          realm_name: 'Acme Corp',
          realm_icon: expect.any(String),
          realm_description: '<p>We <strong>build</strong> things</p>',
          realm_web_public_access_enabled: false,
        },
      });
    }
  });

  it('leaves organization fields out at the root of a multi-organization server', async () => {
    await makeRealm(t);
    const res = await request(t.app)
      .get('/api/v1/server_settings')
      .set('Host', t.config.externalHost);
    expect(res.status).toBe(200);
    expectOpenApiResponse('/server_settings', 'get', res.body, { newerFields: NEWER });
    expect(res.body).not.toHaveProperty('realm_name');
    expect(res.body).not.toHaveProperty('realm_url');
    expect(res.body.zulip_feature_level).toBe(FEATURE_LEVEL);
  });
});
