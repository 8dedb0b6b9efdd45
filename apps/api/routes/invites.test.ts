import { makeChannel, withoutNestedFields } from '../../../test/channel-factories';
import { makeRealm, makeUser, makeUserGroup, type TestUser } from '../../../test/factories';
import { basicAuth, type TestContext } from '../../../test/harness';
import { expectOpenApiResponse } from '../../../test/openapi';
import { eventsAfter, outboxMark } from '../../../test/outbox';
import { api, type Form } from '../../../test/requests';
import { Jobs } from '../../../libs/jobs';
import { jobsWritten } from '../../../test/jobs';
import { Role } from '../../../libs/domain/users/roles';
import { findNotificationBot } from '../../../libs/domain/bots/notification-bot';
import { eventsUntil, startTestEvents } from '../../../test/events-factories';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;

beforeAll(async () => {
  org = await organization({});
  ({ t } = org);
});
afterAll(() => org.close());

const invite = (who: TestUser, form: Form) =>
  org.as(who).post('/invites', { stream_ids: '[]', ...form });

let n = 0;
const fresh = () => `invitee-${Date.now()}-${++n}@example.com`;

async function invitationJobs(): Promise<number[]> {
  const jobs = await jobsWritten(t, Jobs.sendEmail);
  return jobs.flatMap((j) => (j.kind === 'invitation' ? [j.invitationId] : []));
}

describe('POST /invites', () => {
  it('invites new addresses with channels, the default expiry, an email and an event', async () => {
    const member = await makeUser(t, org.realm);
    const channel = await makeChannel(t, org.realm, { subscribers: [member.user] });
    const [a, b] = [fresh(), fresh()];
    const mark = await outboxMark(t);
    const res = await invite(member, {
      invitee_emails: `${a}, Bee <${b}>\n`,
      stream_ids: JSON.stringify([channel.id]),
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const rows = await t.db.invitation.findMany({
      where: { email: { in: [a, b] } },
      include: { streams: true },
    });
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.invitedAs).toBe(Role.MEMBER);
      expect(row.streams.map((s) => s.streamId)).toEqual([channel.id]);
      const minutes = (row.expiresAt!.getTime() - row.createdAt.getTime()) / 60_000;
      expect(Math.round(minutes)).toBe(t.config.inviteExpiryMinutes);
    }
    expect(await invitationJobs()).toEqual(expect.arrayContaining(rows.map((r) => r.id)));
    const events = await eventsAfter(t, mark);
    expect(events.map((e) => e.event)).toEqual([{ type: 'invites_changed' }]);
    expect(events[0].users).toEqual(expect.arrayContaining([org.owner.user.id, member.user.id]));

    const listed = await org.as(member).get('/invites');
    expectOpenApiResponse(
      '/invites',
      'get',
      withoutNestedFields(listed.body, 'invites', ['notify_referrer_on_join']),
    );
    expect(listed.body.invites.map((i: { email: string }) => i.email)).toEqual(
      expect.arrayContaining([a, b]),
    );
  });

  it('adds invitees to the groups the inviter may add members to, as Zulip does', async () => {
    const member = await makeUser(t, org.realm);
    const mine = await makeUserGroup(t, org.realm, { members: [member.user] });
    const addable = await makeUserGroup(t, org.realm, { settings: { canAddMembersGroupId: mine } });
    // Managing a group includes adding members to it (Zulip's access_user_group_for_update).
    const managed = await makeUserGroup(t, org.realm, { settings: { canManageGroupId: mine } });
    const closed = await makeUserGroup(t, org.realm);
    const email = fresh();
    const ok = await invite(member, {
      invitee_emails: email,
      group_ids: JSON.stringify([addable, managed]),
    });
    expect(ok.status).toBe(200);
    const row = await t.db.invitation.findFirstOrThrow({
      where: { email },
      include: { groups: true },
    });
    expect(row.groups.map((g) => g.userGroupId).sort()).toEqual([addable, managed].sort());
    const refused = await invite(member, {
      invitee_emails: fresh(),
      group_ids: JSON.stringify([addable, closed]),
    });
    expect(refused.body).toMatchObject({ result: 'error', msg: 'Insufficient permission' });
    const system = await invite(org.owner, {
      invitee_emails: fresh(),
      group_ids: JSON.stringify([org.systemGroups['role:members']]),
    });
    expect(system.body).toMatchObject({ result: 'error', msg: 'Invalid user group ID' });
  });

  it('never expires with null', async () => {
    const email = fresh();
    await invite(org.owner, { invitee_emails: email, invite_expires_in_minutes: 'null' });
    const row = await t.db.invitation.findFirstOrThrow({ where: { email } });
    expect(row.expiresAt).toBeNull();
  });

  it('reports existing accounts with INVITATION_FAILED after inviting the rest', async () => {
    const existing = await makeUser(t, org.realm);
    const email = fresh();
    const res = await invite(org.owner, { invitee_emails: `${existing.email},${email}` });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      result: 'error',
      code: 'INVITATION_FAILED',
      msg: "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
      errors: [[existing.email, 'Already has an account.', false]],
      sent_invitations: true,
      license_limit_reached: false,
      daily_limit_reached: false,
    });
    expect(await t.db.invitation.count({ where: { email } })).toBe(1);

    const none = await invite(org.owner, { invitee_emails: existing.email });
    expect(none.body).toMatchObject({
      code: 'INVITATION_FAILED',
      msg: "We weren't able to invite anyone.",
      sent_invitations: false,
    });
    const invalid = await invite(org.owner, { invitee_emails: `${fresh()}, not-an-email` });
    expect(invalid.body).toMatchObject({
      code: 'INVITATION_FAILED',
      msg: "Some emails did not validate, so we didn't send any invitations.",
      errors: [['not-an-email', 'Invalid address.', false]],
      sent_invitations: false,
    });
  });

  it('refuses bad requests and changes nothing', async () => {
    const before = await t.db.invitation.count();
    const empty = await invite(org.owner, { invitee_emails: ' , ' });
    expect(empty.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'You must specify at least one email address.',
    });
    const badChannel = await invite(org.owner, {
      invitee_emails: fresh(),
      stream_ids: '[999999]',
    });
    expect(badChannel.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Channel does not exist with ID: 999999. No invites were sent.',
    });
    const missing = await org.as(org.owner).post('/invites', { invitee_emails: fresh() });
    expect(missing.body).toMatchObject({
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'stream_ids',
    });
    expect(await t.db.invitation.count()).toBe(before);
  });

  it('applies the role ceiling and refuses guests', async () => {
    const member = await makeUser(t, org.realm);
    const admin = await makeUser(t, org.realm, { role: Role.ADMINISTRATOR });
    const guest = await makeUser(t, org.realm, { role: Role.GUEST });
    const asAdmin = await invite(member, {
      invitee_emails: fresh(),
      invite_as: Role.ADMINISTRATOR,
    });
    expect(asAdmin.body).toMatchObject({ msg: 'Must be an organization administrator' });
    const asOwner = await invite(admin, { invitee_emails: fresh(), invite_as: Role.OWNER });
    expect(asOwner.body).toMatchObject({ msg: 'Must be an organization owner' });
    expect(
      (await invite(admin, { invitee_emails: fresh(), invite_as: Role.MODERATOR })).status,
    ).toBe(200);
    expect(
      (await invite(org.owner, { invitee_emails: fresh(), invite_as: Role.OWNER })).status,
    ).toBe(200);
    const byGuest = await invite(guest, { invitee_emails: fresh() });
    expect(byGuest.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Insufficient permission',
    });
    const badRole = await invite(org.owner, { invitee_emails: fresh(), invite_as: 250 });
    expect(badRole.body).toMatchObject({ msg: 'Invalid invite_as' });
  });
});

describe('managing invitations', () => {
  it('revokes and resends for the inviter or an administrator only', async () => {
    const inviter = await makeUser(t, org.realm);
    const other = await makeUser(t, org.realm);
    const email = fresh();
    await invite(inviter, { invitee_emails: email });
    const row = await t.db.invitation.findFirstOrThrow({ where: { email } });
    const notTheirs = await org.as(other).delete(`/invites/${row.id}`);
    expect(notTheirs.body).toMatchObject({ msg: 'Must be an organization administrator' });
    expect((await org.as(other).get('/invites')).body.invites).toEqual([]);
    const resent = await org.as(inviter).post(`/invites/${row.id}/resend`);
    expect(resent.status).toBe(200);
    expect((await invitationJobs()).filter((id) => id === row.id)).toHaveLength(2);
    expect((await org.as(inviter).delete(`/invites/${row.id}`)).status).toBe(200);
    const gone = await org.as(inviter).delete(`/invites/${row.id}`);
    expect(gone.body).toEqual({ result: 'error', code: 'BAD_REQUEST', msg: 'No such invitation' });
    const resendGone = await org.as(org.owner).post(`/invites/${row.id}/resend`);
    expect(resendGone.body.msg).toBe('No such invitation');
  });

  it('creates and revokes reusable links (administrators by default)', async () => {
    const member = await makeUser(t, org.realm);
    const denied = await org.as(member).post('/invites/multiuse', {});
    expect(denied.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Insufficient permission' });
    const res = await org.as(org.owner).post('/invites/multiuse', {
      invite_expires_in_minutes: 60,
    });
    expect(res.status).toBe(200);
    expect(res.body.invite_link).toMatch(/\/join\/[0-9a-f]{24}\/$/);
    const listed = await org.as(org.owner).get('/invites');
    const link = listed.body.invites.find((i: { is_multiuse: boolean }) => i.is_multiuse);
    expect(link.link_url).toBe(res.body.invite_link);
    expect((await org.as(org.owner).delete(`/invites/multiuse/${link.id}`)).status).toBe(200);
    const again = await org.as(org.owner).delete(`/invites/multiuse/${link.id}`);
    expect(again.body.msg).toBe('Invitation has already been revoked');
  });
});

describe('POST /invites/redeem', () => {
  it('creates the invited account with its role and channels and returns its API key', async () => {
    const channel = await makeChannel(t, org.realm, { subscribers: [org.owner.user] });
    const email = fresh();
    await invite(org.owner, {
      invitee_emails: email,
      invite_as: Role.MODERATOR,
      stream_ids: JSON.stringify([channel.id]),
    });
    const row = await t.db.invitation.findFirstOrThrow({ where: { email } });
    const res = await org.as(null).post('/invites/redeem', {
      key: row.confirmationKey,
      full_name: 'New Person',
      password: 'secret-pass',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ result: 'success', email, api_key: expect.any(String) });
    const user = await t.db.user.findUniqueOrThrow({ where: { id: res.body.user_id } });
    expect(user).toMatchObject({ role: Role.MODERATOR, fullName: 'New Person' });
    expect(
      await t.db.subscription.count({
        where: { userId: user.id, recipientId: channel.recipientId! },
      }),
    ).toBe(1);
    const me = await org.as({ auth: basicAuth(email, res.body.api_key) }).get('/users/me');
    expect(me.body.user_id).toBe(user.id);
    const reuse = await org.as(null).post('/invites/redeem', {
      key: row.confirmationKey,
      full_name: 'Again',
    });
    expect(reuse.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'The confirmation link has expired or been deactivated.',
    });
  });

  it('redeems a reusable link for any address', async () => {
    const link = (await org.as(org.owner).post('/invites/multiuse', {})).body.invite_link as string;
    const key = /\/join\/([0-9a-f]+)\/$/.exec(link)![1];
    const email = fresh();
    const missing = await org.as(null).post('/invites/redeem', { key, full_name: 'Link User' });
    expect(missing.body.msg).toBe("Missing 'email' argument");
    const res = await org.as(null).post('/invites/redeem', { key, full_name: 'Link User', email });
    expect(res.status).toBe(200);
    expect(res.body.email).toBe(email);
  });
});

const redeem = (host: string, form: Form) => api(t, host, 'post', '/invites/redeem', null, form);

async function keyOf(email: string, realmId = org.realm.id): Promise<string> {
  const row = await t.db.invitation.findFirstOrThrow({ where: { email, realmId } });
  return row.confirmationKey;
}

async function channelIdsOf(userId: number): Promise<number[]> {
  const subs = await t.db.subscription.findMany({
    where: { userId, active: true },
    select: { recipientId: true },
  });
  const streams = await t.db.stream.findMany({
    where: { recipientId: { in: subs.map((s) => s.recipientId) } },
    select: { id: true },
  });
  return streams.map((s) => s.id).sort((a, b) => a - b);
}

describe('redeeming: channels and the notice to the inviter', () => {
  it('adds the default channels only when the invitation asks for them', async () => {
    const general = await t.db.defaultStream.findFirstOrThrow({
      where: { realmId: org.realm.id },
    });
    const channel = await makeChannel(t, org.realm, { subscribers: [org.owner.user] });
    const [without, withDefaults] = [fresh(), fresh()];
    for (const [email, include] of [
      [without, false],
      [withDefaults, true],
    ] as const) {
      const res = await invite(org.owner, {
        invitee_emails: email,
        stream_ids: JSON.stringify([channel.id]),
        ...(include ? { include_realm_default_subscriptions: true } : {}),
      });
      expect(res.status).toBe(200);
      const row = await t.db.invitation.findFirstOrThrow({ where: { email } });
      expect(row.includeRealmDefaultSubscriptions).toBe(include);
    }
    const a = await redeem(org.host, { key: await keyOf(without), full_name: 'No Defaults' });
    const b = await redeem(org.host, { key: await keyOf(withDefaults), full_name: 'Defaults' });
    expect(await channelIdsOf(a.body.user_id)).toEqual([channel.id]);
    expect(await channelIdsOf(b.body.user_id)).toEqual(
      [channel.id, general.streamId].sort((x, y) => x - y),
    );

    const link = await org.as(org.owner).post('/invites/multiuse', {
      stream_ids: JSON.stringify([channel.id]),
    });
    const key = /\/join\/([0-9a-f]+)\/$/.exec(link.body.invite_link as string)![1];
    const viaLink = await redeem(org.host, { key, email: fresh(), full_name: 'Link Joiner' });
    expect(await channelIdsOf(viaLink.body.user_id)).toEqual([channel.id]);
  });

  it("tells the inviter by a direct message from the notification bot, into the inviter's queue", async () => {
    const inviter = await makeUser(t, org.realm, { fullName: 'Ivy Inviter' });
    const bot = await findNotificationBot(t.db, org.realm.id);
    const queue = await org.register(inviter, {
      event_types: JSON.stringify(['message', 'invites_changed']),
    });
    const events = await startTestEvents(t);
    try {
      const email = fresh();
      expect((await invite(inviter, { invitee_emails: email })).status).toBe(200);
      const res = await redeem(org.host, { key: await keyOf(email), full_name: 'Nina New' });
      expect(res.status).toBe(200);
      const joined = res.body.user_id as number;

      const notice = await t.db.message.findFirstOrThrow({
        where: { senderId: bot!.id, content: { contains: `|${joined}**` } },
      });
      expect(notice.content).toBe(
        `@_**Nina New|${joined}** accepted your invitation to join Zulip!`,
      );
      expect(notice.renderedContent).toContain(`data-user-id="${joined}"`);
      expect(
        await t.db.userMessage.count({ where: { messageId: notice.id, userId: inviter.user.id } }),
      ).toBe(1);

      const got = await eventsUntil(events, org.host, inviter.auth, queue.queue_id, (evs) =>
        evs.some((e) => e.type === 'message'),
      );
      const message = got.find((e) => e.type === 'message') as
        { message: { id: number; sender_id: number } } | undefined;
      expect(message?.message).toMatchObject({ id: notice.id, sender_id: bot!.id });
      expect(got.filter((e) => e.type === 'invites_changed').length).toBeGreaterThanOrEqual(2);
    } finally {
      await events.stop();
    }
  });

  it('sends no notice when notify_referrer_on_join is false', async () => {
    const inviter = await makeUser(t, org.realm);
    const email = fresh();
    await invite(inviter, { invitee_emails: email, notify_referrer_on_join: false });
    const mark = await outboxMark(t);
    const res = await redeem(org.host, { key: await keyOf(email), full_name: 'Quiet Joiner' });
    expect(res.status).toBe(200);
    const bot = await findNotificationBot(t.db, org.realm.id);
    expect(
      await t.db.message.count({
        where: { senderId: bot!.id, content: { contains: `|${res.body.user_id}**` } },
      }),
    ).toBe(0);
    const types = (await eventsAfter(t, mark)).map((e) => e.event.type);
    expect(types).toContain('realm_user');
    expect(types).not.toContain('message');
  });
});

describe('daily invitation limit', () => {
  const LIMIT_MSG =
    'To protect users, Zulip limits the number of invitations you can send in one day. Because you have reached the limit, no invitations were sent.';
  const limitError = {
    result: 'error',
    code: 'INVITATION_FAILED',
    msg: LIMIT_MSG,
    errors: [],
    sent_invitations: false,
    license_limit_reached: false,
    daily_limit_reached: true,
  };

  it("refuses invitations past the organization's max_invites, counting every address", async () => {
    const small = await makeRealm(t);
    await t.db.realm.update({ where: { id: small.realm.id }, data: { maxInvites: 3 } });
    const member = await makeUser(t, small.realm);
    const send = (auth: string, emails: string[]) =>
      api(t, small.host, 'post', '/invites', auth, {
        invitee_emails: emails.join(','),
        stream_ids: '[]',
      });
    expect((await send(small.owner.auth, [fresh(), fresh()])).status).toBe(200);
    const over = await send(member.auth, [fresh(), fresh()]);
    expect(over.status).toBe(400);
    expect(over.body).toEqual(limitError);
    expect(await t.db.invitation.count({ where: { realmId: small.realm.id } })).toBe(2);
    // The third invitation reaches the limit exactly; a fourth is one too many.
    expect((await send(member.auth, [fresh()])).status).toBe(200);
    expect((await send(small.owner.auth, [fresh()])).body).toEqual(limitError);
    const pending = await t.db.invitation.findFirstOrThrow({ where: { realmId: small.realm.id } });
    const resend = await api(
      t,
      small.host,
      'post',
      `/invites/${pending.id}/resend`,
      small.owner.auth,
    );
    expect(resend.body).toEqual(limitError);
  });

  it('defaults to the server limit and counts only the last 24 hours', async () => {
    expect(t.config.invitesDefaultRealmDailyMax).toBe(100);
    const other = await makeRealm(t);
    const rows = Array.from({ length: 99 }, (_, i) => ({
      realmId: other.realm.id,
      email: `bulk-${i}-${Date.now()}@example.com`,
      referredById: other.owner.user.id,
      confirmationKey: `bulk${i}${Date.now()}${other.realm.id}`,
    }));
    await t.db.invitation.createMany({ data: rows });
    const send = () =>
      api(t, other.host, 'post', '/invites', other.owner.auth, {
        invitee_emails: fresh(),
        stream_ids: '[]',
      });
    expect((await send()).status).toBe(200);
    expect((await send()).body).toEqual(limitError);
    await t.db.invitation.updateMany({
      where: { email: rows[0].email },
      data: { createdAt: new Date(Date.now() - 25 * 60 * 60 * 1000) },
    });
    expect((await send()).status).toBe(200);
  });
});

describe('organization email rules', () => {
  it('refuses disposable addresses by default and reports them with the accounts found', async () => {
    const rules = await makeRealm(t);
    const existing = await makeUser(t, rules.realm);
    const good = fresh();
    const res = await api(t, rules.host, 'post', '/invites', rules.owner.auth, {
      invitee_emails: `${good}, Throwaway <temp@mailinator.com>, ${existing.email}`,
      stream_ids: '[]',
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      result: 'error',
      code: 'INVITATION_FAILED',
      msg: "Some emails did not validate, so we didn't send any invitations.",
      errors: [
        ['temp@mailinator.com', 'Please use your real email address.', false],
        [existing.email, 'Already has an account.', false],
      ],
      sent_invitations: false,
      license_limit_reached: false,
      daily_limit_reached: false,
    });
    expect(await t.db.invitation.count({ where: { realmId: rules.realm.id } })).toBe(0);

    await t.db.realm.update({
      where: { id: rules.realm.id },
      data: { disallowDisposableEmailAddresses: false },
    });
    const allowed = await api(t, rules.host, 'post', '/invites', rules.owner.auth, {
      invitee_emails: 'temp@mailinator.com',
      stream_ids: '[]',
    });
    expect(allowed.status).toBe(200);
  });

  it("limits invitations to the organization's domains when restricted", async () => {
    const corp = await makeRealm(t);
    await t.db.realm.update({
      where: { id: corp.realm.id },
      data: { emailsRestrictedToDomains: true },
    });
    const added = await api(t, corp.host, 'post', '/realm/domains', corp.owner.auth, {
      domain: 'acme.example',
      allow_subdomains: false,
    });
    expect(added.status).toBe(200);
    const send = (emails: string) =>
      api(t, corp.host, 'post', '/invites', corp.owner.auth, {
        invitee_emails: emails,
        stream_ids: '[]',
      });
    const local = `a${++n}`;
    expect((await send(`${local}@acme.example, ${local}@ACME.example`)).status).toBe(200);
    expect(await t.db.invitation.count({ where: { realmId: corp.realm.id } })).toBe(1);
    const refused = await send(`b${++n}@sub.acme.example, c+x@acme.example, d@gmail.com`);
    expect(refused.body).toMatchObject({
      code: 'INVITATION_FAILED',
      sent_invitations: false,
      errors: [
        [`b${n}@sub.acme.example`, 'Outside your domain.', false],
        ['c+x@acme.example', 'Email addresses containing + are not allowed.', false],
        ['d@gmail.com', 'Outside your domain.', false],
      ],
    });
    await api(t, corp.host, 'patch', '/realm/domains/acme.example', corp.owner.auth, {
      allow_subdomains: true,
    });
    expect((await send(`e${++n}@deep.sub.acme.example`)).status).toBe(200);
  });

  it('applies the same rules when an invitation is redeemed', async () => {
    const corp = await makeRealm(t);
    const email = `late-${++n}@elsewhere.example`;
    expect(
      (
        await api(t, corp.host, 'post', '/invites', corp.owner.auth, {
          invitee_emails: email,
          stream_ids: '[]',
        })
      ).status,
    ).toBe(200);
    const link = await api(t, corp.host, 'post', '/invites/multiuse', corp.owner.auth, {});
    const linkKey = /\/join\/([0-9a-f]+)\/$/.exec(link.body.invite_link as string)![1];

    const disposable = await redeem(corp.host, {
      key: linkKey,
      email: 'x@mailinator.com',
      full_name: 'Temp',
    });
    expect(disposable.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Please use your real email address.',
    });

    // The organization restricted its domains after the invitation was sent.
    await t.db.realmDomain.create({ data: { realmId: corp.realm.id, domain: 'acme.example' } });
    await t.db.realm.update({
      where: { id: corp.realm.id },
      data: { emailsRestrictedToDomains: true },
    });
    const outside = await redeem(corp.host, {
      key: await keyOf(email, corp.realm.id),
      full_name: 'Late Joiner',
    });
    expect(outside.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: `Your email address, ${email}, is not in one of the domains that are allowed to register for accounts in this organization.`,
    });
    const plus = await redeem(corp.host, {
      key: linkKey,
      email: 'y+tag@acme.example',
      full_name: 'Plus',
    });
    expect(plus.body.msg).toBe(
      'Email addresses containing + are not allowed in this organization.',
    );
    expect(
      await t.db.user.count({ where: { realmId: corp.realm.id, fullName: 'Late Joiner' } }),
    ).toBe(0);
    const inside = await redeem(corp.host, {
      key: linkKey,
      email: `ok-${++n}@acme.example`,
      full_name: 'Inside',
    });
    expect(inside.status).toBe(200);
  });
});
