import { makeUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { expectOpenApiResponse } from '../../../test/openapi';
import { eventsAfter, outboxMark } from '../../../test/outbox';
import { Role } from '../../../libs/domain/users/roles';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;

beforeAll(async () => {
  org = await organization({});
  ({ t } = org);
});
afterAll(() => org.close());

const ISSUE = {
  pattern: '#(?P<id>[0-9]+)',
  url_template: 'https://github.com/org/repo/issues/{id}',
};

describe('linkifiers', () => {
  it('adds, lists, edits, reorders and deletes linkifiers with realm_linkifiers events', async () => {
    const mark = await outboxMark(t);
    const added = await org.as(org.owner).post('/realm/filters', ISSUE);
    expect(added.status).toBe(200);
    expectOpenApiResponse('/realm/filters', 'post', added.body);
    const first = added.body.id as number;
    const second = (
      await org.as(org.owner).post('/realm/filters', {
        pattern: 'T(?P<ticket>[0-9]+)',
        url_template: 'https://tickets.example.com/{ticket}',
      })
    ).body.id as number;

    const listed = await org.as(org.owner).get('/realm/linkifiers');
    expectOpenApiResponse('/realm/linkifiers', 'get', listed.body);
    expect(listed.body.linkifiers.map((l: { id: number }) => l.id)).toEqual([first, second]);
    expect(listed.body.linkifiers[0]).toEqual({ id: first, ...ISSUE });

    const edited = await org.as(org.owner).patch(`/realm/filters/${first}`, {
      pattern: '#(?P<id>[0-9]+)',
      url_template: 'https://example.com/{id}',
    });
    expect(edited.body).toEqual({ result: 'success', msg: '' });
    const reordered = await org.as(org.owner).patch('/realm/linkifiers', {
      ordered_linkifier_ids: JSON.stringify([second, first]),
    });
    expect(reordered.status).toBe(200);
    const after = await org.as(org.owner).get('/realm/linkifiers');
    expect(after.body.linkifiers.map((l: { id: number }) => l.id)).toEqual([second, first]);
    expect(after.body.linkifiers[1].url_template).toBe('https://example.com/{id}');

    const deleted = await org.as(org.owner).delete(`/realm/filters/${second}`);
    expect(deleted.status).toBe(200);
    const events = await eventsAfter(t, mark);
    expect(events.every((e) => e.event.type === 'realm_linkifiers')).toBe(true);
    expect(events.at(-1)!.event.realm_linkifiers).toEqual([
      { id: first, pattern: '#(?P<id>[0-9]+)', url_template: 'https://example.com/{id}' },
    ]);
    expect(events.at(-1)!.users).toContain(org.owner.user.id);
    await org.as(org.owner).delete(`/realm/filters/${first}`);
  });

  it('is for administrators only', async () => {
    const id = (await org.as(org.owner).post('/realm/filters', ISSUE)).body.id as number;
    for (const role of [Role.MEMBER, Role.GUEST, Role.MODERATOR]) {
      const actor = await makeUser(t, org.realm, { role });
      const add = await org.as(actor).post('/realm/filters', {
        pattern: 'X(?P<n>[0-9]+)',
        url_template: 'https://x.example.com/{n}',
      });
      expect(add.body).toEqual({
        result: 'error',
        code: 'BAD_REQUEST',
        msg: 'Must be an organization administrator',
      });
      const del = await org.as(actor).delete(`/realm/filters/${id}`);
      expect(del.body.msg).toBe('Must be an organization administrator');
      // Everyone may list them.
      expect((await org.as(actor).get('/realm/linkifiers')).status).toBe(200);
    }
    const admin = await makeUser(t, org.realm, { role: Role.ADMINISTRATOR });
    expect((await org.as(admin).delete(`/realm/filters/${id}`)).status).toBe(200);
  });

  it('reports invalid patterns, templates, duplicates and unknown IDs', async () => {
    const badRegex = await org.as(org.owner).post('/realm/filters', {
      pattern: '(?P<id>[0-9+)',
      url_template: 'https://example.com/{id}',
    });
    expect(badRegex.body.code).toBe('BAD_REQUEST');
    expect(badRegex.body.msg).toMatch(/^Bad regular expression/);
    expect(badRegex.body.errors).toHaveProperty('pattern');
    const missingGroup = await org.as(org.owner).post('/realm/filters', {
      pattern: '#(?P<id>[0-9]+)',
      url_template: 'https://example.com/{other}',
    });
    expect(missingGroup.body.msg).toBe(
      "Group 'other' in URL template is not present in linkifier pattern.",
    );
    const id = (await org.as(org.owner).post('/realm/filters', ISSUE)).body.id as number;
    const dup = await org.as(org.owner).post('/realm/filters', ISSUE);
    expect(dup.body.msg).toBe('Linkifier with this Pattern and Realm already exists.');
    const unknown = await org.as(org.owner).patch('/realm/filters/999999', ISSUE);
    expect(unknown.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Linkifier not found.',
    });
    const missing = await org.as(org.owner).patch(`/realm/filters/${id}`, { pattern: 'x' });
    expect(missing.body).toMatchObject({
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'url_template',
    });
    const partial = await org.as(org.owner).patch('/realm/linkifiers', {
      ordered_linkifier_ids: JSON.stringify([]),
    });
    expect(partial.body.msg).toBe(
      'The ordered list must enumerate all existing linkifiers exactly once',
    );
    const dupIds = await org.as(org.owner).patch('/realm/linkifiers', {
      ordered_linkifier_ids: JSON.stringify([id, id]),
    });
    expect(dupIds.body.msg).toBe('The ordered list must not contain duplicated linkifiers');
  });
});
