import { Queue } from 'bullmq';
import { makeChannel, withoutNestedFields } from '../../../test/channel-factories';
import { makeRealm, makeUser, type TestRealm } from '../../../test/factories';
import { basicAuth, startTestContext, type TestContext } from '../../../test/harness';
import { expectOpenApiResponse } from '../../../test/openapi';
import { api, eventsAfter, outboxMark } from '../../../test/user-factories';
import { bullPrefix, QueueName } from '../../../libs/jobs';
import { Role } from '../../../libs/domain/users/roles';

let t: TestContext;
let org: TestRealm;
let emails: Queue;

beforeAll(async () => {
  t = await startTestContext();
  org = await makeRealm(t);
  emails = new Queue(QueueName.EMAIL, {
    connection: t.redis,
    prefix: bullPrefix(t.config.redisPrefix),
  });
});
afterAll(() => t.close());

type Form = Record<string, string | number | boolean>;
const call = (method: 'get' | 'post' | 'delete', path: string, auth: string | null, form?: Form) =>
  api(t, org.host, method, path, auth, form);
const invite = (auth: string, form: Form) =>
  call('post', '/invites', auth, { stream_ids: '[]', ...form });

let n = 0;
const fresh = () => `invitee-${Date.now()}-${++n}@example.com`;

async function invitationJobs(): Promise<number[]> {
  const jobs = await emails.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed']);
  return jobs.filter((j) => j.data.kind === 'invitation').map((j) => j.data.invitationId as number);
}

describe('POST /invites', () => {
  it('invites new addresses with channels, the default expiry, an email and an event', async () => {
    const member = await makeUser(t, org.realm);
    const channel = await makeChannel(t, org, { subscribers: [member.user] });
    const [a, b] = [fresh(), fresh()];
    const mark = await outboxMark(t);
    const res = await invite(member.auth, {
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

    const listed = await call('get', '/invites', member.auth);
    expectOpenApiResponse(
      '/invites',
      'get',
      withoutNestedFields(listed.body, 'invites', ['notify_referrer_on_join']),
    );
    expect(listed.body.invites.map((i: { email: string }) => i.email)).toEqual(
      expect.arrayContaining([a, b]),
    );
  });

  it('never expires with null', async () => {
    const email = fresh();
    await invite(org.owner.auth, { invitee_emails: email, invite_expires_in_minutes: 'null' });
    const row = await t.db.invitation.findFirstOrThrow({ where: { email } });
    expect(row.expiresAt).toBeNull();
  });

  it('reports existing accounts with INVITATION_FAILED after inviting the rest', async () => {
    const existing = await makeUser(t, org.realm);
    const email = fresh();
    const res = await invite(org.owner.auth, { invitee_emails: `${existing.email},${email}` });
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

    const none = await invite(org.owner.auth, { invitee_emails: existing.email });
    expect(none.body).toMatchObject({
      code: 'INVITATION_FAILED',
      msg: "We weren't able to invite anyone.",
      sent_invitations: false,
    });
    const invalid = await invite(org.owner.auth, { invitee_emails: `${fresh()}, not-an-email` });
    expect(invalid.body).toMatchObject({
      code: 'INVITATION_FAILED',
      msg: "Some emails did not validate, so we didn't send any invitations.",
      errors: [['not-an-email', 'Invalid address.', false]],
      sent_invitations: false,
    });
  });

  it('refuses bad requests and changes nothing', async () => {
    const before = await t.db.invitation.count();
    const empty = await invite(org.owner.auth, { invitee_emails: ' , ' });
    expect(empty.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'You must specify at least one email address.',
    });
    const badChannel = await invite(org.owner.auth, {
      invitee_emails: fresh(),
      stream_ids: '[999999]',
    });
    expect(badChannel.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Channel does not exist with ID: 999999. No invites were sent.',
    });
    const missing = await call('post', '/invites', org.owner.auth, { invitee_emails: fresh() });
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
    const asAdmin = await invite(member.auth, {
      invitee_emails: fresh(),
      invite_as: Role.ADMINISTRATOR,
    });
    expect(asAdmin.body).toMatchObject({ msg: 'Must be an organization administrator' });
    const asOwner = await invite(admin.auth, { invitee_emails: fresh(), invite_as: Role.OWNER });
    expect(asOwner.body).toMatchObject({ msg: 'Must be an organization owner' });
    expect(
      (await invite(admin.auth, { invitee_emails: fresh(), invite_as: Role.MODERATOR })).status,
    ).toBe(200);
    expect(
      (await invite(org.owner.auth, { invitee_emails: fresh(), invite_as: Role.OWNER })).status,
    ).toBe(200);
    const byGuest = await invite(guest.auth, { invitee_emails: fresh() });
    expect(byGuest.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Insufficient permission',
    });
    const badRole = await invite(org.owner.auth, { invitee_emails: fresh(), invite_as: 250 });
    expect(badRole.body).toMatchObject({ msg: 'Invalid invite_as' });
  });
});

describe('managing invitations', () => {
  it('revokes and resends for the inviter or an administrator only', async () => {
    const inviter = await makeUser(t, org.realm);
    const other = await makeUser(t, org.realm);
    const email = fresh();
    await invite(inviter.auth, { invitee_emails: email });
    const row = await t.db.invitation.findFirstOrThrow({ where: { email } });
    const notTheirs = await call('delete', `/invites/${row.id}`, other.auth);
    expect(notTheirs.body).toMatchObject({ msg: 'Must be an organization administrator' });
    expect((await call('get', '/invites', other.auth)).body.invites).toEqual([]);
    const resent = await call('post', `/invites/${row.id}/resend`, inviter.auth);
    expect(resent.status).toBe(200);
    expect((await invitationJobs()).filter((id) => id === row.id)).toHaveLength(2);
    expect((await call('delete', `/invites/${row.id}`, inviter.auth)).status).toBe(200);
    const gone = await call('delete', `/invites/${row.id}`, inviter.auth);
    expect(gone.body).toEqual({ result: 'error', code: 'BAD_REQUEST', msg: 'No such invitation' });
    const resendGone = await call('post', `/invites/${row.id}/resend`, org.owner.auth);
    expect(resendGone.body.msg).toBe('No such invitation');
  });

  it('creates and revokes reusable links (administrators by default)', async () => {
    const member = await makeUser(t, org.realm);
    const denied = await call('post', '/invites/multiuse', member.auth, {});
    expect(denied.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Insufficient permission' });
    const res = await call('post', '/invites/multiuse', org.owner.auth, {
      invite_expires_in_minutes: 60,
    });
    expect(res.status).toBe(200);
    expect(res.body.invite_link).toMatch(/\/join\/[0-9a-f]{24}\/$/);
    const listed = await call('get', '/invites', org.owner.auth);
    const link = listed.body.invites.find((i: { is_multiuse: boolean }) => i.is_multiuse);
    expect(link.link_url).toBe(res.body.invite_link);
    expect((await call('delete', `/invites/multiuse/${link.id}`, org.owner.auth)).status).toBe(200);
    const again = await call('delete', `/invites/multiuse/${link.id}`, org.owner.auth);
    expect(again.body.msg).toBe('Invitation has already been revoked');
  });
});

describe('POST /invites/redeem', () => {
  it('creates the invited account with its role and channels and returns its API key', async () => {
    const channel = await makeChannel(t, org);
    const email = fresh();
    await invite(org.owner.auth, {
      invitee_emails: email,
      invite_as: Role.MODERATOR,
      stream_ids: JSON.stringify([channel.id]),
    });
    const row = await t.db.invitation.findFirstOrThrow({ where: { email } });
    const res = await call('post', '/invites/redeem', null, {
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
    const me = await call('get', '/users/me', basicAuth(email, res.body.api_key));
    expect(me.body.user_id).toBe(user.id);
    const reuse = await call('post', '/invites/redeem', null, {
      key: row.confirmationKey,
      full_name: 'Again',
    });
    expect(reuse.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'The confirmation link has expired or been deactivated.',
    });
  });

  it('redeems a reusable link for any address', async () => {
    const link = (await call('post', '/invites/multiuse', org.owner.auth, {})).body
      .invite_link as string;
    const key = /\/join\/([0-9a-f]+)\/$/.exec(link)![1];
    const email = fresh();
    const missing = await call('post', '/invites/redeem', null, { key, full_name: 'Link User' });
    expect(missing.body.msg).toBe("Missing 'email' argument");
    const res = await call('post', '/invites/redeem', null, { key, full_name: 'Link User', email });
    expect(res.status).toBe(200);
    expect(res.body.email).toBe(email);
  });
});
