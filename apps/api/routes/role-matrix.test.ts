/**
 * Authorization by role for the issue-5 endpoints whose rule differs by role (spec 5.4, Zulip's
 * documented rules where the spec is silent). Each row names an endpoint and a rule, and for each
 * role that matters what happens: success (and the state changed), or Zulip's exact refusal (and
 * the state, read again, did not change). Every case starts from fresh objects of its own.
 *
 * Cases marked `bug` are known differences from Zulip's documented behaviour; they run with
 * `test.failing` until the code is fixed, when the marker must go.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import type { Stream } from '../../../generated/prisma/client';
import { Role, type RoleCode } from '../../../libs/domain/users/roles';
import { makeChannel } from '../../../test/channel-factories';
import { makeUser, type TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
const uploads = mkdtempSync(path.join(tmpdir(), 'role-matrix-'));
let org: Organization;
const actors = {} as Record<Actor, TestUser>;

type Actor = 'guest' | 'member' | 'moderator' | 'admin' | 'owner';
type Outcome = { ok: true; bug?: string } | { refused: string; bug?: string };

beforeAll(async () => {
  org = await organization({
    env: { UPLOADS_DIR: uploads },
    members: {
      guest: { role: 'guest', fullName: 'Gus Guest' },
      member: { fullName: 'Mia Member' },
      moderator: { role: 'moderator', fullName: 'Mod' },
      admin: { role: 'administrator', fullName: 'Ada' },
    },
  });
  ({ t } = org);
  Object.assign(actors, org.users, { owner: org.owner });
  // Holders of the special permission, so that only the role decides (spec 4.12).
  await t.db.user.updateMany({
    where: { id: { in: [actors.admin.user.id, actors.owner.user.id] } },
    data: { canChangeUserEmails: true },
  });
});
afterAll(async () => {
  await org.close();
  rmSync(uploads, { recursive: true, force: true });
});

const json = (value: unknown) => JSON.stringify(value);
const unique = () => randomBytes(3).toString('hex');

const OK: Outcome = { ok: true };
const refused = (msg: string, bug?: string): Outcome => ({ refused: msg, bug });
const INSUFFICIENT = 'Insufficient permission';
const NEED_ADMIN = 'Must be an organization administrator';
const NEED_OWNER = 'Must be an organization owner';
const NOT_CHANNEL_ADMIN = 'You do not have permission to administer this channel.';
const NO_GUESTS = 'Not allowed for guest users';

interface Row<F> {
  endpoint: string;
  rule: string;
  /** Fresh objects for one case; gets the acting user, who some fixtures must include. */
  prepare: (actor: TestUser) => Promise<F>;
  act: (actor: TestUser, fixture: F) => request.Test;
  /** What the call may change, read again from the database. */
  state: (fixture: F) => Promise<unknown>;
  outcomes: Partial<Record<Actor, Outcome>>;
  /** A read: success changes nothing. */
  readOnly?: boolean;
}
const row = <F>(r: Row<F>) => r as unknown as Row<unknown>;

/** A fresh user of the given role to act upon. */
const target = (role: RoleCode = Role.MEMBER) => makeUser(t, org.realm, { role });
const userRow = (id: number) =>
  t.db.user.findUniqueOrThrow({
    where: { id },
    select: { fullName: true, role: true, isActive: true, deliveryEmail: true },
  });
const streamRow = (id: number) =>
  t.db.stream.findUniqueOrThrow({
    where: { id },
    select: { description: true, isArchived: true, messageRetentionDays: true },
  });
const subscribers = async (stream: Stream) =>
  (
    await t.db.subscription.findMany({
      where: { recipientId: stream.recipientId!, active: true },
      select: { userId: true },
      orderBy: { userId: 'asc' },
    })
  ).map((s) => s.userId);
/** A public channel the acting user (and the owner) are subscribed to. */
const channelWith = (actor: TestUser) =>
  makeChannel(t, org.realm, { subscribers: [...new Set([org.owner.user, actor.user])] });
const groupMembers = async (groupId: number) =>
  (
    await t.db.userGroupMembership.findMany({
      where: { userGroupId: groupId },
      orderBy: { userId: 'asc' },
    })
  ).map((m) => m.userId);
/** A user group the owner created (so only the owner manages it through can_manage_group). */
async function ownersGroup(): Promise<number> {
  const res = await org.as(org.owner).post('/user_groups/create', {
    name: `group-${unique()}`,
    description: 'made by the owner',
    members: json([org.owner.user.id]),
  });
  return res.body.group_id as number;
}
const invitationFor = (email: string) =>
  t.db.invitation.findFirst({ where: { email }, select: { invitedAs: true } });
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const uploadEmoji = (who: TestUser, name: string) =>
  org
    .as(who)
    .post(`/realm/emoji/${name}`)
    .attach('file', PNG, { filename: 'e.png', contentType: 'image/png' });
const emojiRow = (name: string) =>
  t.db.realmEmoji.findFirst({
    where: { realmId: org.realm.id, name },
    select: { deactivated: true },
  });

const inviteRow = (inviteAs: number, outcomes: Row<unknown>['outcomes']) =>
  row({
    endpoint: 'POST /invites',
    rule: `invite_as ${inviteAs}: roles no more privileged than the inviter's`,
    prepare: async () => `invitee-${unique()}@example.com`,
    act: (who, email) =>
      org.as(who).post('/invites', {
        invitee_emails: email,
        invite_as: inviteAs,
        stream_ids: '[]',
      }),
    state: (email) => invitationFor(email),
    outcomes,
  });

const rows: Row<unknown>[] = [
  row({
    endpoint: 'PATCH /users/{user_id}',
    rule: 'administrators edit users',
    prepare: () => target(),
    act: (who, u) => org.as(who).patch(`/users/${u.user.id}`, { full_name: 'Edited Name' }),
    state: (u) => userRow(u.user.id),
    outcomes: {
      guest: refused(INSUFFICIENT),
      member: refused(INSUFFICIENT),
      moderator: refused(INSUFFICIENT),
      admin: OK,
    },
  }),
  row({
    endpoint: 'PATCH /users/{user_id}',
    rule: 'only owners grant the owner role',
    prepare: () => target(),
    act: (who, u) => org.as(who).patch(`/users/${u.user.id}`, { role: Role.OWNER }),
    state: (u) => userRow(u.user.id),
    outcomes: { admin: refused(NEED_OWNER), owner: OK },
  }),
  row({
    endpoint: 'PATCH /users/{user_id}',
    rule: 'only owners take the owner role away',
    prepare: () => target(Role.OWNER),
    act: (who, u) => org.as(who).patch(`/users/${u.user.id}`, { role: Role.MEMBER }),
    state: (u) => userRow(u.user.id),
    outcomes: { admin: refused(NEED_OWNER), owner: OK },
  }),
  row({
    endpoint: 'PATCH /users/{user_id}',
    rule: 'new_email needs an owner with can_change_user_emails',
    prepare: () => target(),
    act: (who, u) =>
      org.as(who).patch(`/users/${u.user.id}`, { new_email: `new-${unique()}@example.com` }),
    state: (u) => userRow(u.user.id),
    outcomes: { admin: refused(INSUFFICIENT), owner: OK },
  }),
  row({
    endpoint: 'DELETE /users/{user_id}',
    rule: 'administrators deactivate users',
    prepare: () => target(),
    act: (who, u) => org.as(who).delete(`/users/${u.user.id}`),
    state: (u) => userRow(u.user.id),
    outcomes: {
      guest: refused(INSUFFICIENT),
      member: refused(INSUFFICIENT),
      moderator: refused(INSUFFICIENT),
      admin: OK,
    },
  }),
  row({
    endpoint: 'DELETE /users/{user_id}',
    rule: 'only owners deactivate owners',
    prepare: () => target(Role.OWNER),
    act: (who, u) => org.as(who).delete(`/users/${u.user.id}`),
    state: (u) => userRow(u.user.id),
    outcomes: {
      admin: refused(NEED_OWNER),
      owner: OK,
    },
  }),
  row({
    endpoint: 'POST /users/{user_id}/reactivate',
    rule: 'administrators reactivate users',
    prepare: async () => {
      const u = await target();
      await t.db.user.update({ where: { id: u.user.id }, data: { isActive: false } });
      return u;
    },
    act: (who, u) => org.as(who).post(`/users/${u.user.id}/reactivate`),
    state: (u) => userRow(u.user.id),
    outcomes: {
      guest: refused(INSUFFICIENT),
      member: refused(INSUFFICIENT),
      moderator: refused(INSUFFICIENT),
      admin: OK,
    },
  }),
  row({
    endpoint: 'PATCH /streams/{stream_id}',
    rule: 'administrators (and can_administer_channel_group) edit channels',
    prepare: channelWith,
    act: (who, s) => org.as(who).patch(`/streams/${s.id}`, { description: 'edited' }),
    state: (s) => streamRow(s.id),
    outcomes: {
      guest: refused(NOT_CHANNEL_ADMIN),
      member: refused(NOT_CHANNEL_ADMIN),
      moderator: refused(NOT_CHANNEL_ADMIN),
      admin: OK,
    },
  }),
  row({
    endpoint: 'PATCH /streams/{stream_id}',
    rule: "a channel's creator administers it (can_administer_channel_group defaults to the creator)",
    prepare: async (who) => {
      const name = `own-${unique()}`;
      await org.as(who).post('/users/me/subscriptions', { subscriptions: json([{ name }]) });
      return t.db.stream.findFirstOrThrow({ where: { realmId: org.realm.id, name } });
    },
    act: (who, s) => org.as(who).patch(`/streams/${s.id}`, { description: 'by my creator' }),
    state: (s) => streamRow(s.id),
    outcomes: {
      member: {
        ok: true,
      },
    },
  }),
  row({
    endpoint: 'PATCH /streams/{stream_id}',
    rule: 'only owners set message retention',
    prepare: channelWith,
    act: (who, s) => org.as(who).patch(`/streams/${s.id}`, { message_retention_days: 30 }),
    state: (s) => streamRow(s.id),
    outcomes: { admin: refused(NEED_OWNER), owner: OK },
  }),
  row({
    endpoint: 'DELETE /streams/{stream_id}',
    rule: 'administrators archive channels',
    prepare: channelWith,
    act: (who, s) => org.as(who).delete(`/streams/${s.id}`),
    state: (s) => streamRow(s.id),
    outcomes: {
      guest: refused(NOT_CHANNEL_ADMIN),
      member: refused(NOT_CHANNEL_ADMIN),
      moderator: refused(NOT_CHANNEL_ADMIN),
      admin: OK,
    },
  }),
  row({
    endpoint: 'POST /users/me/subscriptions',
    rule: 'guests cannot subscribe themselves (require_non_guest_user)',
    prepare: () => makeChannel(t, org.realm, { subscribers: [org.owner.user] }),
    act: (who, s) =>
      org.as(who).post('/users/me/subscriptions', { subscriptions: json([{ name: s.name }]) }),
    state: subscribers,
    outcomes: {
      guest: refused(NO_GUESTS),
      member: OK,
    },
  }),
  row({
    endpoint: 'POST /users/me/subscriptions',
    rule: 'principals: can_add_subscribers_group (role:members by default); never guests',
    prepare: async (who) => ({ stream: await channelWith(who), other: await target() }),
    act: (who, f) =>
      org.as(who).post('/users/me/subscriptions', {
        subscriptions: json([{ name: f.stream.name }]),
        principals: json([f.other.user.id]),
      }),
    state: (f) => subscribers(f.stream),
    outcomes: {
      guest: refused(NO_GUESTS),
      member: OK,
      admin: OK,
    },
  }),
  row({
    endpoint: 'DELETE /users/me/subscriptions',
    rule: 'principals: can_remove_subscribers_group (administrators by default)',
    prepare: async (who) => {
      const other = await target();
      const stream = await makeChannel(t, org.realm, {
        subscribers: [...new Set([org.owner.user, who.user, other.user])],
      });
      return { stream, other };
    },
    act: (who, f) =>
      org.as(who).delete('/users/me/subscriptions', {
        subscriptions: json([f.stream.name]),
        principals: json([f.other.user.id]),
      }),
    state: (f) => subscribers(f.stream),
    outcomes: {
      guest: refused(INSUFFICIENT),
      member: refused(INSUFFICIENT),
      moderator: refused(INSUFFICIENT),
      admin: OK,
    },
  }),
  row({
    endpoint: 'GET /user_groups',
    rule: 'members and administrators only (require_member_or_admin)',
    prepare: async () => null,
    act: (who) => org.as(who).get('/user_groups'),
    state: async () => null,
    outcomes: { guest: refused(NO_GUESTS), member: OK },
    readOnly: true,
  }),
  row({
    endpoint: 'GET /user_groups/{user_group_id}/members',
    rule: 'members and administrators only (require_member_or_admin)',
    prepare: ownersGroup,
    act: (who, id) => org.as(who).get(`/user_groups/${id}/members`),
    state: async () => null,
    outcomes: { guest: refused(NO_GUESTS), member: OK },
    readOnly: true,
  }),
  row({
    endpoint: 'POST /user_groups/create',
    rule: 'can_create_groups (role:members by default)',
    prepare: async () => `made-${unique()}`,
    act: (who, name) =>
      org.as(who).post('/user_groups/create', { name, description: 'x', members: '[]' }),
    state: (name) => t.db.userGroup.count({ where: { realmId: org.realm.id, name } }),
    outcomes: { guest: refused(INSUFFICIENT), member: OK },
  }),
  row({
    endpoint: 'PATCH /user_groups/{user_group_id}',
    rule: 'can_manage_group (the creator by default) or administrators',
    prepare: ownersGroup,
    act: (who, id) => org.as(who).patch(`/user_groups/${id}`, { description: 'edited' }),
    state: (id) =>
      t.db.userGroup.findUniqueOrThrow({ where: { id }, select: { description: true } }),
    outcomes: { guest: refused(INSUFFICIENT), member: refused(INSUFFICIENT), admin: OK, owner: OK },
  }),
  row({
    endpoint: 'POST /user_groups/{user_group_id}/members',
    rule: 'adding others needs can_add_members_group or managing the group',
    prepare: async () => ({ id: await ownersGroup(), other: await target() }),
    act: (who, f) =>
      org.as(who).post(`/user_groups/${f.id}/members`, { add: json([f.other.user.id]) }),
    state: (f) => groupMembers(f.id),
    outcomes: { guest: refused(INSUFFICIENT), member: refused(INSUFFICIENT), admin: OK },
  }),
  inviteRow(Role.MEMBER, { guest: refused(INSUFFICIENT), member: OK }),
  inviteRow(Role.MODERATOR, {
    member: refused(NEED_ADMIN),
    moderator: {
      ok: true,
    },
  }),
  inviteRow(Role.ADMINISTRATOR, { moderator: refused(NEED_ADMIN), admin: OK }),
  inviteRow(Role.OWNER, { admin: refused(NEED_OWNER), owner: OK }),
  row({
    endpoint: 'POST /realm/filters',
    rule: 'administrators manage linkifiers',
    prepare: async () => `RM${unique()}-(?P<id>[0-9]+)`,
    act: (who, pattern) =>
      org.as(who).post('/realm/filters', { pattern, url_template: 'https://rm.example.com/{id}' }),
    state: (pattern) => t.db.realmFilter.count({ where: { realmId: org.realm.id, pattern } }),
    outcomes: {
      guest: refused(NEED_ADMIN),
      member: refused(NEED_ADMIN),
      moderator: refused(NEED_ADMIN),
      admin: OK,
    },
  }),
  row({
    endpoint: 'POST /realm/profile_fields',
    rule: 'administrators manage custom profile fields',
    prepare: async () => `Field ${unique()}`,
    act: (who, name) => org.as(who).post('/realm/profile_fields', { name, field_type: 1 }),
    state: (name) => t.db.customProfileField.count({ where: { realmId: org.realm.id, name } }),
    outcomes: {
      guest: refused(NEED_ADMIN),
      member: refused(NEED_ADMIN),
      moderator: refused(NEED_ADMIN),
      admin: OK,
    },
  }),
  row({
    endpoint: 'POST /realm/emoji/{emoji_name}',
    rule: 'can_add_custom_emoji_group (role:members by default)',
    prepare: async () => `emoji_${unique()}`,
    act: (who, name) => uploadEmoji(who, name),
    state: emojiRow,
    outcomes: { guest: refused(INSUFFICIENT), member: OK },
  }),
  row({
    endpoint: 'DELETE /realm/emoji/{emoji_name}',
    rule: 'the emoji author or administrators',
    prepare: async () => {
      const name = `emoji_${unique()}`;
      expect((await uploadEmoji(org.owner, name)).status).toBe(200);
      return name;
    },
    act: (who, name) => org.as(who).delete(`/realm/emoji/${name}`),
    state: emojiRow,
    outcomes: {
      member: refused('Must be an organization administrator or emoji author'),
      admin: OK,
    },
  }),
  row({
    endpoint: 'POST /default_streams',
    rule: 'administrators manage default channels',
    prepare: channelWith,
    act: (who, s) => org.as(who).post('/default_streams', { stream_id: s.id }),
    state: (s) => t.db.defaultStream.count({ where: { streamId: s.id } }),
    outcomes: {
      guest: refused(NEED_ADMIN),
      member: refused(NEED_ADMIN),
      moderator: refused(NEED_ADMIN),
      admin: OK,
    },
  }),
  row({
    endpoint: 'PATCH /realm',
    rule: 'administrators change organization settings',
    prepare: async () => `Org ${unique()}`,
    act: (who, name) => org.as(who).patch('/realm', { name }),
    state: () =>
      t.db.realm.findUniqueOrThrow({ where: { id: org.realm.id }, select: { name: true } }),
    outcomes: {
      guest: refused(NEED_ADMIN),
      member: refused(NEED_ADMIN),
      moderator: refused(NEED_ADMIN),
      admin: OK,
    },
  }),
  row({
    endpoint: 'PATCH /realm',
    rule: 'owner-only settings (invite_required)',
    prepare: async () =>
      (await t.db.realm.findUniqueOrThrow({ where: { id: org.realm.id } })).inviteRequired,
    act: (who, current) => org.as(who).patch('/realm', { invite_required: !current }),
    state: () =>
      t.db.realm.findUniqueOrThrow({
        where: { id: org.realm.id },
        select: { inviteRequired: true },
      }),
    outcomes: { admin: refused(NEED_OWNER), owner: OK },
  }),
];

for (const r of rows) {
  describe(`${r.endpoint}: ${r.rule}`, () => {
    for (const [actor, outcome] of Object.entries(r.outcomes) as [Actor, Outcome][]) {
      const title = 'ok' in outcome ? `${actor} may` : `${actor} is refused`;
      const run = outcome.bug ? test.failing : it;
      run(outcome.bug ? `${title} (known bug: ${outcome.bug})` : title, async () => {
        const who = actors[actor];
        const fixture = await r.prepare(who);
        const before = await r.state(fixture);
        const res = await r.act(who, fixture);
        const after = await r.state(fixture);
        if ('ok' in outcome) {
          expect(res.body).toMatchObject({ result: 'success', msg: '' });
          expect(res.status).toBe(200);
          if (!r.readOnly) expect(after).not.toEqual(before);
        } else {
          expect(res.body).toEqual({ result: 'error', code: 'BAD_REQUEST', msg: outcome.refused });
          expect(res.status).toBe(400);
          expect(after).toEqual(before);
        }
      });
    }
  });
}
