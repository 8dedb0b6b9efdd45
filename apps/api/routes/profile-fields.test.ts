import { withoutNestedFields } from '../../../test/channel-factories';
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

let n = 0;
const create = (form: Record<string, string | number | boolean> = {}) =>
  org.as(org.owner).post('/realm/profile_fields', {
    name: `Field ${++n}`,
    field_type: 1,
    ...form,
  });

describe('custom profile fields', () => {
  it('creates, lists, edits, reorders and deletes fields with custom_profile_fields events', async () => {
    const mark = await outboxMark(t);
    const a = await create({ name: 'Phone', hint: 'Your number' });
    expect(a.status).toBe(200);
    expectOpenApiResponse('/realm/profile_fields', 'post', a.body);
    const b = await create({
      name: 'Team',
      field_type: 3,
      field_data: JSON.stringify({
        '0': { text: 'Red', order: '1' },
        '1': { text: 'Blue', order: '2' },
      }),
    });
    expect(b.status).toBe(200);
    const listed = await org.as(org.owner).get('/realm/profile_fields');
    expectOpenApiResponse(
      '/realm/profile_fields',
      'get',
      withoutNestedFields(listed.body, 'custom_fields', ['editable_by_user']),
    );
    const phone = listed.body.custom_fields.find((f: { id: number }) => f.id === a.body.id);
    expect(phone).toMatchObject({
      name: 'Phone',
      hint: 'Your number',
      type: 1,
      field_data: '',
      required: false,
      editable_by_user: true,
    });
    const edited = await org.as(org.owner).patch(`/realm/profile_fields/${a.body.id}`, {
      name: 'Mobile',
      display_in_profile_summary: true,
    });
    expect(edited.body).toEqual({ result: 'success', msg: '' });
    const reordered = await org.as(org.owner).patch('/realm/profile_fields', {
      order: JSON.stringify([b.body.id, a.body.id]),
    });
    expect(reordered.status).toBe(200);
    const after = await org.as(org.owner).get('/realm/profile_fields');
    expect(after.body.custom_fields.map((f: { id: number }) => f.id)).toEqual([
      b.body.id,
      a.body.id,
    ]);
    expect(after.body.custom_fields[1]).toMatchObject({
      name: 'Mobile',
      display_in_profile_summary: true,
    });
    expect((await org.as(org.owner).delete(`/realm/profile_fields/${b.body.id}`)).status).toBe(200);
    const events = await eventsAfter(t, mark);
    expect(events.every((e) => e.event.type === 'custom_profile_fields')).toBe(true);
    expect((events.at(-1)!.event.fields as { id: number }[]).map((f) => f.id)).toEqual([a.body.id]);
    await org.as(org.owner).delete(`/realm/profile_fields/${a.body.id}`);
  });

  it('is for administrators only', async () => {
    for (const role of [Role.MEMBER, Role.GUEST, Role.MODERATOR]) {
      const actor = await makeUser(t, org.realm, { role });
      const res = await org.as(actor).post('/realm/profile_fields', {
        name: 'X',
        field_type: 1,
      });
      expect(res.body).toEqual({
        result: 'error',
        code: 'BAD_REQUEST',
        msg: 'Must be an organization administrator',
      });
      expect((await org.as(actor).get('/realm/profile_fields')).status).toBe(200);
    }
    const admin = await makeUser(t, org.realm, { role: Role.ADMINISTRATOR });
    const ok = await org.as(admin).post('/realm/profile_fields', {
      name: 'By admin',
      field_type: 1,
    });
    expect(ok.status).toBe(200);
    await org.as(admin).delete(`/realm/profile_fields/${ok.body.id}`);
  });

  it('validates fields', async () => {
    const cases: [Record<string, string | number | boolean>, string][] = [
      [{ name: '' }, 'Label cannot be blank.'],
      [{ name: 'x'.repeat(41) }, 'name is too long (limit: 40 characters)'],
      [{ hint: 'x'.repeat(81) }, 'hint is too long (limit: 80 characters)'],
      [{ field_type: 99 }, 'Invalid field type.'],
      [{ field_type: 3, field_data: '{}' }, 'Field must have at least one choice.'],
      [
        { field_type: 2, display_in_profile_summary: true },
        'Field type not supported for display in profile summary.',
      ],
    ];
    for (const [form, msg] of cases) {
      const res = await create(form);
      expect(res.body).toEqual({ result: 'error', code: 'BAD_REQUEST', msg });
    }
    const first = await create({ name: 'Unique' });
    const dup = await create({ name: 'unique' });
    expect(dup.body.msg).toBe('A field with that label already exists.');
    const unknown = await org.as(org.owner).delete('/realm/profile_fields/999999');
    expect(unknown.body.msg).toBe('Field id 999999 not found.');
    const badOrder = await org.as(org.owner).patch('/realm/profile_fields', {
      order: JSON.stringify([first.body.id, first.body.id]),
    });
    expect(badOrder.body.msg).toBe('Invalid order mapping.');
    await org.as(org.owner).delete(`/realm/profile_fields/${first.body.id}`);
  });
});

describe('own profile data', () => {
  it('sets and clears values with realm_user events, respecting editable_by_user', async () => {
    const member = await makeUser(t, org.realm);
    const text = (await create({ name: 'About' })).body.id as number;
    const locked = (await create({ name: 'Employee ID', editable_by_user: false })).body
      .id as number;
    const date = (await create({ name: 'Birthday', field_type: 4 })).body.id as number;
    const mark = await outboxMark(t);
    const res = await org.as(member).patch('/users/me/profile_data', {
      data: JSON.stringify([
        { id: text, value: 'I like **tea**' },
        { id: date, value: '1990-05-01' },
      ]),
    });
    expect(res.status).toBe(200);
    const events = await eventsAfter(t, mark);
    expect(events[0].event).toEqual({
      type: 'realm_user',
      op: 'update',
      person: {
        user_id: member.user.id,
        custom_profile_field: {
          id: text,
          value: 'I like **tea**',
          rendered_value: '<p>I like <strong>tea</strong></p>',
        },
      },
    });
    const me = await org
      .as(member)
      .get(`/users/${member.user.id}?include_custom_profile_fields=true`);
    expect(me.body.user.profile_data[String(date)]).toEqual({ value: '1990-05-01' });

    const lockedRes = await org.as(member).patch('/users/me/profile_data', {
      data: JSON.stringify([{ id: locked, value: '7' }]),
    });
    expect(lockedRes.body.msg).toBe(
      'You are not allowed to change this field. Contact an administrator to update it.',
    );
    const badDate = await org.as(member).patch('/users/me/profile_data', {
      data: JSON.stringify([{ id: date, value: 'tomorrow' }]),
    });
    expect(badDate.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Birthday is not a date' });

    const cleared = await org.as(member).delete('/users/me/profile_data', {
      data: JSON.stringify([text]),
    });
    expect(cleared.status).toBe(200);
    expect(
      await t.db.customProfileFieldValue.count({
        where: { userId: member.user.id, fieldId: text },
      }),
    ).toBe(0);
    const unknown = await org.as(member).delete('/users/me/profile_data', {
      data: JSON.stringify([999999]),
    });
    expect(unknown.body.msg).toBe('Field id 999999 not found.');
  });
});
