import { makeUser, type TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { eventsAfter, outboxMark } from '../../../test/outbox';
import { Role } from '../../../libs/domain/users/roles';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;

beforeAll(async () => {
  org = await organization();
  ({ t } = org);
});
afterAll(() => org.close());

const patch = (who: TestUser, form: Record<string, string | number | boolean>) =>
  org.as(who).patch('/realm', form);

describe('PATCH /realm', () => {
  it('changes settings with one realm event per changed property', async () => {
    const admin = await makeUser(t, org.realm, { role: Role.ADMINISTRATOR });
    const mark = await outboxMark(t);
    const res = await patch(admin, {
      name: 'Renamed Org',
      enable_spectator_access: true,
      email_changes_disabled: true,
      digest_weekday: 3,
      empty_topic_display_name: 'chit-chat',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const realm = await t.db.realm.findUniqueOrThrow({ where: { id: org.realm.id } });
    expect(realm).toMatchObject({
      name: 'Renamed Org',
      enableSpectatorAccess: true,
      emailChangesDisabled: true,
      digestWeekday: 3,
      emptyTopicDisplayName: 'chit-chat',
    });
    const events = await eventsAfter(t, mark);
    expect(events.map((e) => e.event)).toEqual([
      { type: 'realm', op: 'update', property: 'name', value: 'Renamed Org' },
      { type: 'realm', op: 'update', property: 'email_changes_disabled', value: true },
      { type: 'realm', op: 'update', property: 'empty_topic_display_name', value: 'chit-chat' },
      { type: 'realm', op: 'update', property: 'enable_spectator_access', value: true },
      { type: 'realm', op: 'update', property: 'digest_weekday', value: 3 },
    ]);
    expect(events[0].users).toContain(org.owner.user.id);
  });

  it('is for administrators, and some settings for owners only', async () => {
    for (const role of [Role.MEMBER, Role.GUEST, Role.MODERATOR]) {
      const actor = await makeUser(t, org.realm, { role });
      const res = await patch(actor, { name: 'Nope' });
      expect(res.body).toEqual({
        result: 'error',
        code: 'BAD_REQUEST',
        msg: 'Must be an organization administrator',
      });
    }
    const admin = await makeUser(t, org.realm, { role: Role.ADMINISTRATOR });
    const ownerOnly = await patch(admin, { invite_required: false });
    expect(ownerOnly.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'Must be an organization owner',
    });
    expect((await patch(org.owner, { invite_required: false })).status).toBe(200);
  });

  it('validates values and changes nothing on error', async () => {
    const bad = await patch(org.owner, { name: 'Valid', digest_weekday: 9 });
    expect(bad.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'digest_weekday is too large',
    });
    const lang = await patch(org.owner, { default_language: 'xx' });
    expect(lang.body.msg).toBe('Invalid default_language');
    const realm = await t.db.realm.findUniqueOrThrow({ where: { id: org.realm.id } });
    expect(realm.name).not.toBe('Valid');
  });
});

describe('PATCH /realm mandatory_topics', () => {
  it('keeps topics_policy in step', async () => {
    expect((await patch(org.owner, { mandatory_topics: true })).status).toBe(200);
    const realm = await t.db.realm.findUniqueOrThrow({ where: { id: org.realm.id } });
    expect(realm).toMatchObject({ mandatoryTopics: true, topicsPolicy: 3 });
    await patch(org.owner, { mandatory_topics: false });
    const after = await t.db.realm.findUniqueOrThrow({ where: { id: org.realm.id } });
    expect(after).toMatchObject({ mandatoryTopics: false, topicsPolicy: 2 });
  });
});
