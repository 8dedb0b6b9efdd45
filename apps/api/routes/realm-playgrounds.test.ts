import { Role } from '../../../libs/domain/users/roles';
import { makeRealm, makeUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { expectOpenApiResponse } from '../../../test/openapi';
import { eventsAfter, outboxMark } from '../../../test/outbox';
import { api } from '../../../test/requests';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;

beforeAll(async () => {
  org = await organization({});
  ({ t } = org);
});
afterAll(() => org.close());

const PYTHON = {
  name: 'Python playground',
  pygments_language: 'Python',
  url_template: 'https://python.example.com?code={code}',
};

describe('code playgrounds', () => {
  it('adds and removes playgrounds with realm_playgrounds events and register state', async () => {
    const member = await makeUser(t, org.realm);
    const mark = await outboxMark(t);
    const added = await org.as(org.owner).post('/realm/playgrounds', {
      ...PYTHON,
      name: '  Python playground ',
    });
    expect(added.status).toBe(200);
    expectOpenApiResponse('/realm/playgrounds', 'post', added.body);
    const python = added.body.id as number;
    const rust = (
      await org.as(org.owner).post('/realm/playgrounds', {
        name: 'Rust playground',
        pygments_language: 'Rust',
        url_template: 'https://play.rust-lang.org/?edition=2021{&code}',
      })
    ).body.id as number;

    const state = await org.register(member, {
      fetch_event_types: JSON.stringify(['realm_playgrounds']),
    });
    expectOpenApiResponse('/register', 'post', state);
    expect(state.realm_playgrounds).toEqual([
      { id: python, ...PYTHON },
      {
        id: rust,
        name: 'Rust playground',
        pygments_language: 'Rust',
        url_template: 'https://play.rust-lang.org/?edition=2021{&code}',
      },
    ]);

    const removed = await org.as(org.owner).delete(`/realm/playgrounds/${python}`);
    expect(removed.body).toEqual({ result: 'success', msg: '' });
    expectOpenApiResponse('/realm/playgrounds/{playground_id}', 'delete', removed.body);
    const events = await eventsAfter(t, mark);
    expect(events.map((e) => e.event.type)).toEqual([
      'realm_playgrounds',
      'realm_playgrounds',
      'realm_playgrounds',
    ]);
    expect(events[0].event.realm_playgrounds).toEqual([{ id: python, ...PYTHON }]);
    expect(events.at(-1)!.event.realm_playgrounds).toEqual([
      expect.objectContaining({ id: rust, name: 'Rust playground' }),
    ]);
    expect(events.at(-1)!.users).toEqual(
      expect.arrayContaining([org.owner.user.id, member.user.id]),
    );
    await org.as(org.owner).delete(`/realm/playgrounds/${rust}`);
  });

  it('is for administrators only', async () => {
    const id = (await org.as(org.owner).post('/realm/playgrounds', PYTHON)).body.id as number;
    for (const role of [Role.MEMBER, Role.GUEST, Role.MODERATOR]) {
      const actor = await makeUser(t, org.realm, { role });
      const add = await org.as(actor).post('/realm/playgrounds', {
        ...PYTHON,
        name: 'Mine',
      });
      expect(add.body).toEqual({
        result: 'error',
        code: 'BAD_REQUEST',
        msg: 'Must be an organization administrator',
      });
      const del = await org.as(actor).delete(`/realm/playgrounds/${id}`);
      expect(del.body.msg).toBe('Must be an organization administrator');
    }
    expect(await t.db.realmPlayground.count({ where: { realmId: org.realm.id } })).toBe(1);
    const admin = await makeUser(t, org.realm, { role: Role.ADMINISTRATOR });
    expect((await org.as(admin).delete(`/realm/playgrounds/${id}`)).status).toBe(200);
    expect(await t.db.realmPlayground.count({ where: { realmId: org.realm.id } })).toBe(0);
  });

  it("reports Zulip's validation errors", async () => {
    const add = (form: Partial<typeof PYTHON>) =>
      org.as(org.owner).post('/realm/playgrounds', { ...PYTHON, ...form });
    const cases: [Partial<typeof PYTHON>, string, string | null][] = [
      [{ pygments_language: 'Py<thon>' }, 'Invalid characters in pygments language', null],
      [
        { pygments_language: 'x'.repeat(41) },
        'pygments_language is too long (limit: 40 characters)',
        null,
      ],
      [{ url_template: 'https://x.example.com/{code' }, 'Invalid URL template.', 'url_template'],
      [{ url_template: '' }, 'This field cannot be blank.', 'url_template'],
      [{ name: ' ' }, 'This field cannot be blank.', 'name'],
      [{ pygments_language: '' }, 'This field cannot be blank.', 'pygments_language'],
      [
        { url_template: 'https://x.example.com/{source}' },
        'Missing the required variable "code" in the URL template',
        '__all__',
      ],
      [
        { url_template: 'https://x.example.com/{code}?v={version}' },
        '"code" should be the only variable present in the URL template',
        '__all__',
      ],
    ];
    for (const [form, msg, field] of cases) {
      const res = await add(form);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg });
      if (field) expect(res.body.errors).toEqual({ [field]: [msg] });
      else expect(res.body).not.toHaveProperty('errors');
    }
    const first = await add({});
    expect(first.status).toBe(200);
    const dup = await add({});
    const dupMsg = 'Realm playground with this Realm, Pygments language and Name already exists.';
    expect(dup.body).toMatchObject({ msg: dupMsg, errors: { __all__: [dupMsg] } });
    // The same name for another language is a different playground.
    expect((await add({ pygments_language: 'Python3' })).status).toBe(200);
    const missing = await org.as(org.owner).post('/realm/playgrounds', {
      name: 'x',
      pygments_language: 'x',
    });
    expect(missing.body).toMatchObject({
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'url_template',
    });
    const unknown = await org.as(org.owner).delete('/realm/playgrounds/999999');
    expect(unknown.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Invalid playground',
    });
  });

  it("cannot remove another organization's playground", async () => {
    const other = await makeRealm(t);
    const theirs = (
      await api(t, other.host, 'post', '/realm/playgrounds', other.owner.auth, PYTHON)
    ).body.id as number;
    const res = await org.as(org.owner).delete(`/realm/playgrounds/${theirs}`);
    expect(res.body.msg).toBe('Invalid playground');
    expect(await t.db.realmPlayground.findUnique({ where: { id: theirs } })).not.toBeNull();
  });
});
