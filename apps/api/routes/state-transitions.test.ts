/**
 * Spec section 3 (States and transitions), one describe per row of its table, driven through the
 * real HTTP API and observed the way a client observes it: through an event queue served by the
 * real events tier, with the worker tier running for the effects that leave the request (emails,
 * scheduled delivery). Where a route test already covers part of a row, the comment says which
 * and the tests here cover what it leaves out.
 */
import request from 'supertest';
import type { Stream } from '../../../generated/prisma/client';
import { createApiApp } from '../app';
import { jobHandlers } from '../../worker/handlers';
import { startWorkers, type RunningWorkers } from '../../worker/start-workers';
import { DISPATCH_GROUP } from '../../../libs/events/domain-stream';
import { eventKeys } from '../../../libs/events/keys';
import { Role } from '../../../libs/domain/users/roles';
import { Jobs } from '../../../libs/jobs';
import {
  makeChannel,
  NEWER_CHANNEL_FIELDS,
  withoutNestedFields,
} from '../../../test/channel-factories';
import { postToChannel } from '../../../test/message-factories';
import { makeUser, type TestUser } from '../../../test/factories';
import type { EventBody } from '../../../test/events-factories';
import type { TestContext } from '../../../test/harness';
import { openApiErrors } from '../../../test/openapi';
import {
  startSmtpReceiver,
  waitFor,
  type ReceivedMail,
  type SmtpReceiver,
} from '../../../test/worker-factories';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let smtp: SmtpReceiver;
let workers: RunningWorkers;
let org: Organization;
let admin: TestUser;
let member: TestUser;

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  org = await organization({
    env: smtp.env,
    realm: { name: 'Transit Org' },
    events: true,
    members: {
      admin: { role: 'administrator', fullName: 'Ada Admin' },
      member: { fullName: 'Mo Member' },
    },
  });
  ({ t } = org);
  ({ admin, member } = org.users);
  workers = startWorkers(t, jobHandlers);
});
afterAll(async () => {
  await workers.close();
  await org.close();
  await smtp.close();
});

type Form = Record<string, string | number | boolean>;
const json = (value: unknown) => JSON.stringify(value);

/** A client's event queue; `take` returns the next events matching `match`, in order. */
interface Client {
  who: TestUser;
  queueId: string;
  lastEventId: number;
  seen: EventBody[];
}

/**
 * Waits until the dispatcher has handled every published event. Dispatch runs after commit, so an
 * event committed just before a queue is registered can still reach that queue; each client
 * connects only once earlier events are out of the way.
 */
async function dispatched(): Promise<void> {
  const keys = eventKeys(t.config.redisPrefix);
  const partitionDone = async (partition: number) => {
    const key = keys.domainStream(partition);
    const last = ((await t.redis.xrevrange(key, '+', '-', 'COUNT', 1))[0]?.[0] ?? '0-0') as string;
    const groups = (await t.redis.xinfo('GROUPS', key)) as unknown[][];
    const group = groups
      .map((g) => Object.fromEntries(pairs(g)))
      .find((g) => g.name === DISPATCH_GROUP);
    return group !== undefined && group.pending === 0 && group['last-delivered-id'] === last;
  };
  await waitFor(async () => {
    for (let p = 0; p < t.config.dispatchPartitions; p++)
      if (!(await partitionDone(p))) return false;
    return true;
  });
}
const pairs = (flat: unknown[]) =>
  flat.flatMap((v, i) => (i % 2 === 0 ? [[String(v), flat[i + 1]] as const] : []));

async function connect(who: TestUser, form: Record<string, string> = {}): Promise<Client> {
  await dispatched();
  const q = await org.register(who, {
    client_capabilities: json({ notification_settings_null: true, user_settings_object: true }),
    ...form,
  });
  return { who, queueId: q.queue_id, lastEventId: q.last_event_id, seen: [] };
}

/** Every event the queue delivered so far (non-blocking polls), each checked against OpenAPI. */
async function drain(client: Client): Promise<EventBody[]> {
  const res = await org.poll(client.who, {
    queue_id: client.queueId,
    last_event_id: client.lastEventId,
    dont_block: true,
  });
  expect(res.status).toBe(200);
  const events = res.body.events as EventBody[];
  for (const event of events) {
    const documented = withoutNestedFields(
      withoutNestedFields(event, 'subscriptions', NEWER_CHANNEL_FIELDS),
      'streams',
      NEWER_CHANNEL_FIELDS,
    );
    const errors = openApiErrors('/events', 'get', { ...res.body, events: [documented] });
    if (errors.length)
      throw new Error(`${json(event)} is not a documented event:\n${errors.join('\n')}`);
  }
  if (events.length) client.lastEventId = events[events.length - 1].id;
  client.seen.push(...events);
  return events;
}

async function take(
  client: Client,
  match: (e: EventBody) => boolean,
  count = 1,
): Promise<EventBody[]> {
  const found = await waitFor(async () => {
    await drain(client);
    const hits = client.seen.filter(match);
    return hits.length >= count ? hits : null;
  }, 5000);
  client.seen = client.seen.filter((e) => !found.includes(e));
  return found.map(({ id: _id, ...rest }) => rest as EventBody);
}

/** Once everything published so far is dispatched: did nothing matching arrive? */
async function nothingLike(client: Client, match: (e: EventBody) => boolean): Promise<boolean> {
  await dispatched();
  await drain(client);
  return !client.seen.some(match);
}

const streamRow = (id: number) => t.db.stream.findUniqueOrThrow({ where: { id } });
const ofType =
  (type: string, extra: Record<string, unknown> = {}) =>
  (e: EventBody) =>
    e.type === type && Object.entries(extra).every(([k, v]) => e[k] === v);
const unfold = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/\r\n/g, '\n');
const mailTo = (address: string) =>
  waitFor(async () => smtp.mails.find((m: ReceivedMail) => m.to.includes(address)), 10000);

describe('User: active -> deactivated (DELETE /users/{user_id})', () => {
  // user-admin.test.ts covers the outbox event, the only-owner refusal on self and the queued
  // email job; here the whole way: the event in another client's queue, the email at the SMTP
  // server through the worker, and the owner guard when a second owner exists.
  it('tells other clients with the FL 222 deactivation form; the user can no longer call the API', async () => {
    const target = await makeUser(t, org.realm);
    const observer = await connect(member, { event_types: json(['realm_user']) });
    const res = await org.as(admin).delete(`/users/${target.user.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    expect(await take(observer, ofType('realm_user'))).toEqual([
      { type: 'realm_user', op: 'update', person: { user_id: target.user.id, is_active: false } },
    ]);
    const listed = await org.as(member).get(`/users/${target.user.id}`);
    expect(listed.body.user).toMatchObject({ user_id: target.user.id, is_active: false });
    expect((await org.as(target).get('/users/me')).body.code).toBe('USER_DEACTIVATED');
  });

  it('mails the user with the custom text, without it for an empty comment, and not at all for none', async () => {
    const withText = await makeUser(t, org.realm, { email: 'leaver1@example.com' });
    const noText = await makeUser(t, org.realm, { email: 'leaver2@example.com' });
    const silent = await makeUser(t, org.realm, { email: 'leaver3@example.com' });
    await org.as(admin).delete(`/users/${withText.user.id}`, {
      deactivation_notification_comment: 'So long, and thanks',
    });
    await org.as(admin).delete(`/users/${noText.user.id}`, {
      deactivation_notification_comment: '',
    });
    await org.as(admin).delete(`/users/${silent.user.id}`);

    const first = unfold((await mailTo('leaver1@example.com')).raw);
    expect(first).toContain('Subject: Your account on');
    expect(first).toContain('has been deactivated');
    expect(first).toContain('The administrators provided the following comment:');
    expect(first).toContain('So long, and thanks');
    const second = unfold((await mailTo('leaver2@example.com')).raw);
    expect(second).toContain('has been deactivated');
    expect(second).not.toContain('The administrators provided the following comment');
    // Once every email job written is done, a third mail would have arrived.
    await waitFor(
      async () =>
        (await t.db.jobOutbox.count({
          where: { jobName: Jobs.sendEmail.name, doneAt: null },
        })) === 0,
    );
    expect(smtp.mails.some((m) => m.to.includes('leaver3@example.com'))).toBe(false);
  });

  it('lets an owner deactivate another owner, but never the only one', async () => {
    const second = await makeUser(t, org.realm, { role: Role.OWNER });
    const ok = await org.as(org.owner).delete(`/users/${second.user.id}`);
    expect(ok.status).toBe(200);
    const only = await org.as(org.owner).delete(`/users/${org.owner.user.id}`);
    expect(only.status).toBe(400);
    expect(only.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Cannot deactivate the only organization owner',
    });
    // Reactivating the second owner makes the first deactivatable again.
    expect((await org.as(org.owner).post(`/users/${second.user.id}/reactivate`)).status).toBe(200);
    const third = await makeUser(t, org.realm, { role: Role.OWNER });
    expect((await org.as(second).delete(`/users/${third.user.id}`)).status).toBe(200);
    expect((await t.db.user.findUniqueOrThrow({ where: { id: org.owner.user.id } })).isActive).toBe(
      true,
    );
  });
});

describe('Channel: public -> private (PATCH /streams/{stream_id} is_private=true)', () => {
  // channels.test.ts toggles privacy as the owner and checks the row; here the event, who can
  // still see the channel, and Zulip's history default.
  it('makes the channel private; subscribers hear of it, non-subscribers lose sight of it', async () => {
    const chan = await makeChannel(t, org.realm, { subscribers: [org.owner.user, admin.user] });
    const subscriber = await connect(admin, { event_types: json(['stream']) });
    const res = await org.as(admin).patch(`/streams/${chan.id}`, { is_private: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const [update] = await take(subscriber, ofType('stream', { property: 'invite_only' }));
    expect(update).toMatchObject({
      op: 'update',
      stream_id: chan.id,
      name: chan.name,
      value: true,
    });
    expect((await streamRow(chan.id)).inviteOnly).toBe(true);
    const hidden = await org.as(member).get(`/streams/${chan.id}`);
    expect(hidden.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Invalid channel ID',
    });
  });

  // Zulip's update_stream_backend: without history_public_to_subscribers, a channel made private
  // gets protected history (`proposed_history_public_to_subscribers = not is_private`).
  it('defaults the history of a channel made private to protected', async () => {
    const chan = await makeChannel(t, org.realm, { subscribers: [admin.user] });
    await org.as(admin).patch(`/streams/${chan.id}`, { is_private: true });
    expect(await streamRow(chan.id)).toMatchObject({
      inviteOnly: true,
      historyPublicToSubscribers: false,
    });
  });

  it('keeps shared history when asked for it', async () => {
    const chan = await makeChannel(t, org.realm, { subscribers: [admin.user] });
    const res = await org.as(admin).patch(`/streams/${chan.id}`, {
      is_private: true,
      history_public_to_subscribers: true,
    });
    expect(res.status).toBe(200);
    expect(await streamRow(chan.id)).toMatchObject({
      inviteOnly: true,
      historyPublicToSubscribers: true,
    });
  });

  // Zulip refuses instead of silently dropping the channel from the defaults.
  it('refuses to make a default channel private', async () => {
    const chan = await makeChannel(t, org.realm, { subscribers: [admin.user] });
    expect(
      (await org.as(admin).patch(`/streams/${chan.id}`, { is_default_stream: true })).status,
    ).toBe(200);
    const res = await org.as(admin).patch(`/streams/${chan.id}`, { is_private: true });
    expect(res.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'A default channel cannot be private.',
    });
    expect((await streamRow(chan.id)).inviteOnly).toBe(false);
  });
});

describe('Channel: private -> public (PATCH /streams/{stream_id} is_private=false)', () => {
  let secret: Stream;
  beforeAll(async () => {
    secret = await makeChannel(t, org.realm, { inviteOnly: true, subscribers: [org.owner.user] });
    expect((await streamRow(secret.id)).historyPublicToSubscribers).toBe(false);
  });

  it('refuses an administrator who is not subscribed, changing nothing', async () => {
    const res = await org.as(admin).patch(`/streams/${secret.id}`, { is_private: false });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
    expect(await streamRow(secret.id)).toMatchObject({
      inviteOnly: true,
      historyPublicToSubscribers: false,
    });
  });

  it('refuses protected history for the public result, changing nothing', async () => {
    const join = await org.as(org.owner).post('/users/me/subscriptions', {
      subscriptions: json([{ name: secret.name }]),
      principals: json([admin.user.id]),
    });
    expect(join.body.subscribed).toEqual({ [admin.user.id]: [secret.name] });
    const res = await org.as(admin).patch(`/streams/${secret.id}`, {
      is_private: false,
      history_public_to_subscribers: false,
    });
    expect(res.body).toEqual({ result: 'error', code: 'BAD_REQUEST', msg: 'Invalid parameters' });
    expect(await streamRow(secret.id)).toMatchObject({
      inviteOnly: true,
      historyPublicToSubscribers: false,
    });
  });

  it('lets a subscribed administrator make it public, with shared history, visible to members', async () => {
    const observer = await connect(admin, { event_types: json(['stream']) });
    const res = await org.as(admin).patch(`/streams/${secret.id}`, { is_private: false });
    expect(res.status).toBe(200);
    const [update] = await take(observer, ofType('stream', { property: 'invite_only' }));
    expect(update).toMatchObject({ op: 'update', stream_id: secret.id, value: false });
    expect(await streamRow(secret.id)).toMatchObject({
      inviteOnly: false,
      historyPublicToSubscribers: true,
    });
    const seen = await org.as(member).get(`/streams/${secret.id}`);
    expect(seen.status).toBe(200);
    expect(seen.body.stream).toMatchObject({
      stream_id: secret.id,
      invite_only: false,
      history_public_to_subscribers: true,
    });
  });
});

describe('Channel: web-public toggled (PATCH /streams/{stream_id} is_web_public)', () => {
  // channels.test.ts covers only the default organization (spectator access off). Here all three
  // prerequisites on, then each one off.
  let chan: Stream;
  beforeAll(async () => {
    const on = await org.as(org.owner).patch('/realm', { enable_spectator_access: true });
    expect(on.status).toBe(200);
    chan = await makeChannel(t, org.realm, { subscribers: [org.owner.user, admin.user] });
  });
  afterAll(async () => {
    await org.as(org.owner).patch('/realm', { enable_spectator_access: false });
  });

  it('turns on and off with the server setting, the organization setting and the permission', async () => {
    const observer = await connect(admin, { event_types: json(['stream']) });
    const on = await org.as(org.owner).patch(`/streams/${chan.id}`, { is_web_public: true });
    expect(on.status).toBe(200);
    expect(await streamRow(chan.id)).toMatchObject({ isWebPublic: true, inviteOnly: false });
    const [update] = await take(observer, ofType('stream', { property: 'invite_only' }));
    expect(update).toMatchObject({ stream_id: chan.id, is_web_public: true, value: false });
    const listed = await org.as(member).get('/streams', { include_web_public: true });
    expect(
      listed.body.streams.find((s: { stream_id: number }) => s.stream_id === chan.id),
    ).toMatchObject({ is_web_public: true });

    const off = await org.as(org.owner).patch(`/streams/${chan.id}`, { is_web_public: false });
    expect(off.status).toBe(200);
    expect((await streamRow(chan.id)).isWebPublic).toBe(false);
  });

  it('refuses while the server setting is off', async () => {
    const serverOff = createApiApp({
      ...t,
      config: { ...t.config, webPublicStreamsEnabled: false },
    });
    const res = await request(serverOff)
      .patch(`/api/v1/streams/${chan.id}`)
      .set('Host', org.host)
      .set('Authorization', org.owner.auth)
      .type('form')
      .send({ is_web_public: 'true' });
    expect(res.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Web-public channels are not enabled.',
    });
    expect((await streamRow(chan.id)).isWebPublic).toBe(false);
  });

  it('refuses while the organization setting is off', async () => {
    await org.as(org.owner).patch('/realm', { enable_spectator_access: false });
    try {
      const res = await org.as(org.owner).patch(`/streams/${chan.id}`, { is_web_public: true });
      expect(res.body).toEqual({
        result: 'error',
        code: 'BAD_REQUEST',
        msg: 'Web-public channels are not enabled.',
      });
      expect((await streamRow(chan.id)).isWebPublic).toBe(false);
    } finally {
      await org.as(org.owner).patch('/realm', { enable_spectator_access: true });
    }
  });

  it('refuses a caller outside can_create_web_public_channel_group (owners by default)', async () => {
    const res = await org.as(admin).patch(`/streams/${chan.id}`, { is_web_public: true });
    expect(res.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Insufficient permission',
    });
    expect((await streamRow(chan.id)).isWebPublic).toBe(false);
  });

  it('refuses protected history or privacy together with web-public', async () => {
    const forms: Form[] = [
      { is_web_public: true, history_public_to_subscribers: false },
      { is_web_public: true, is_private: true },
    ];
    for (const form of forms) {
      const res = await org.as(org.owner).patch(`/streams/${chan.id}`, form);
      expect(res.body).toEqual({ result: 'error', code: 'BAD_REQUEST', msg: 'Invalid parameters' });
    }
    expect(await streamRow(chan.id)).toMatchObject({ isWebPublic: false, inviteOnly: false });
  });

  it('creates web-public channels through subscribe when everything allows it', async () => {
    const res = await org.as(org.owner).post('/users/me/subscriptions', {
      subscriptions: json([{ name: 'for-spectators' }]),
      is_web_public: true,
    });
    expect(res.status).toBe(200);
    const row = await t.db.stream.findFirstOrThrow({ where: { name: 'for-spectators' } });
    expect(row).toMatchObject({
      isWebPublic: true,
      inviteOnly: false,
      historyPublicToSubscribers: true,
    });
  });
});

describe('Channel: absent -> exists (POST /users/me/subscriptions naming a new channel)', () => {
  // subscriptions.test.ts covers creation by the caller, each creation parameter and the
  // announcement; here principals as the only subscribers, the stream event other clients get,
  // and creation-only parameters left alone on a channel that already exists.
  it('creates the channel for the principals only, and tells the organization', async () => {
    const a = await makeUser(t, org.realm);
    const b = await makeUser(t, org.realm);
    const observer = await connect(member, { event_types: json(['stream']) });
    const res = await org.as(admin).post('/users/me/subscriptions', {
      subscriptions: json([{ name: 'made-for-others', description: 'For *them*' }]),
      principals: json([a.user.id, b.user.id]),
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      result: 'success',
      msg: '',
      subscribed: { [a.user.id]: ['made-for-others'], [b.user.id]: ['made-for-others'] },
      already_subscribed: {},
    });
    const chan = await t.db.stream.findFirstOrThrow({ where: { name: 'made-for-others' } });
    expect(chan.creatorId).toBe(admin.user.id);
    const members = await org.as(member).get(`/streams/${chan.id}/members`);
    expect(members.body.subscribers).toEqual([a.user.id, b.user.id].sort((x, y) => x - y));
    const [created] = await take(observer, ofType('stream', { op: 'create' }));
    expect(created.streams).toEqual([
      expect.objectContaining({
        stream_id: chan.id,
        name: 'made-for-others',
        description: 'For *them*',
        rendered_description: '<p>For <em>them</em></p>',
        invite_only: false,
        creator_id: admin.user.id,
      }),
    ]);
  });

  it('applies creation parameters to the new channel only', async () => {
    const existing = await makeChannel(t, org.realm, { subscribers: [org.owner.user] });
    const res = await org.as(admin).post('/users/me/subscriptions', {
      subscriptions: json([
        { name: existing.name, description: 'ignored' },
        { name: 'brand-new-private', description: 'kept' },
      ]),
      invite_only: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.subscribed).toEqual({
      [admin.user.id]: [existing.name, 'brand-new-private'],
    });
    expect(await streamRow(existing.id)).toMatchObject({ inviteOnly: false, description: '' });
    const fresh = await t.db.stream.findFirstOrThrow({ where: { name: 'brand-new-private' } });
    // Zulip's default for a new private channel is protected history.
    expect(fresh).toMatchObject({
      inviteOnly: true,
      description: 'kept',
      historyPublicToSubscribers: false,
    });
  });
});

describe('Subscription: not subscribed -> subscribed -> subscribed again (already_subscribed)', () => {
  // subscriptions.test.ts covers each half for the caller; here both at once for principals, and
  // that the unchanged subscription emits nothing.
  it('splits principals between subscribed and already_subscribed; only the new one hears of it', async () => {
    const chan = await makeChannel(t, org.realm, { subscribers: [org.owner.user] });
    const old = await makeUser(t, org.realm);
    const fresh = await makeUser(t, org.realm);
    await org.as(old).post('/users/me/subscriptions', {
      subscriptions: json([{ name: chan.name }]),
    });
    const oldClient = await connect(old, { event_types: json(['subscription']) });
    const freshClient = await connect(fresh, { event_types: json(['subscription']) });
    const res = await org.as(admin).post('/users/me/subscriptions', {
      subscriptions: json([{ name: chan.name }]),
      principals: json([old.user.id, fresh.user.id]),
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      result: 'success',
      msg: '',
      subscribed: { [fresh.user.id]: [chan.name] },
      already_subscribed: { [old.user.id]: [chan.name] },
    });
    const [added] = await take(freshClient, ofType('subscription', { op: 'add' }));
    expect(added.subscriptions).toEqual([expect.objectContaining({ stream_id: chan.id })]);
    const [peer] = await take(oldClient, ofType('subscription', { op: 'peer_add' }));
    expect(peer).toMatchObject({ stream_ids: [chan.id], user_ids: [fresh.user.id] });
    expect(await nothingLike(oldClient, ofType('subscription', { op: 'add' }))).toBe(true);
    expect(
      await t.db.subscription.count({
        where: { recipientId: chan.recipientId!, userId: old.user.id },
      }),
    ).toBe(1);

    const again = await org.as(fresh).post('/users/me/subscriptions', {
      subscriptions: json([{ name: chan.name }]),
    });
    expect(again.body).toMatchObject({
      subscribed: {},
      already_subscribed: { [fresh.user.id]: [chan.name] },
    });
    expect(await nothingLike(freshClient, ofType('subscription'))).toBe(true);
  });
});

describe('Subscription property: any value -> new value (POST /users/me/subscriptions/properties)', () => {
  // subscriptions.test.ts covers is_muted (two outbox events) and other properties; here
  // in_home_view, its inverse relation to is_muted and the two events as a client receives them.
  it('in_home_view sets is_muted to the inverse and sends in_home_view then is_muted', async () => {
    const chan = await makeChannel(t, org.realm, { subscribers: [member.user] });
    const client = await connect(member, { event_types: json(['subscription']) });
    const res = await org.as(member).post('/users/me/subscriptions/properties', {
      subscription_data: json([{ stream_id: chan.id, property: 'in_home_view', value: false }]),
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    expect(await take(client, ofType('subscription', { op: 'update' }), 2)).toEqual([
      {
        type: 'subscription',
        op: 'update',
        stream_id: chan.id,
        property: 'in_home_view',
        value: false,
      },
      { type: 'subscription', op: 'update', stream_id: chan.id, property: 'is_muted', value: true },
    ]);
    const listed = await org.as(member).get('/users/me/subscriptions');
    expect(
      listed.body.subscriptions.find((s: { stream_id: number }) => s.stream_id === chan.id),
    ).toMatchObject({ is_muted: true, in_home_view: false });

    await org.as(member).post('/users/me/subscriptions/properties', {
      subscription_data: json([{ stream_id: chan.id, property: 'is_muted', value: false }]),
    });
    expect(await take(client, ofType('subscription', { op: 'update' }), 2)).toEqual([
      {
        type: 'subscription',
        op: 'update',
        stream_id: chan.id,
        property: 'in_home_view',
        value: true,
      },
      {
        type: 'subscription',
        op: 'update',
        stream_id: chan.id,
        property: 'is_muted',
        value: false,
      },
    ]);
  });

  it('any other property sends one event with the new value', async () => {
    const chan = await makeChannel(t, org.realm, { subscribers: [member.user] });
    const client = await connect(member, { event_types: json(['subscription']) });
    await org.as(member).post('/users/me/subscriptions/properties', {
      subscription_data: json([
        { stream_id: chan.id, property: 'desktop_notifications', value: true },
      ]),
    });
    expect(await take(client, ofType('subscription', { op: 'update' }))).toEqual([
      {
        type: 'subscription',
        op: 'update',
        stream_id: chan.id,
        property: 'desktop_notifications',
        value: true,
      },
    ]);
    expect(await nothingLike(client, ofType('subscription'))).toBe(true);
  });
});

describe('Message flag: unset -> set -> unset (POST /messages/flags)', () => {
  // messages-flags.test.ts covers add/remove, the modified list and the historical case; here
  // marking unread in a channel the user left (real, non-historical rows), mixed with one they
  // are still in, and that only `read` skips unsubscribed channels.
  it('skips channels the user is not subscribed to when marking unread, reporting them', async () => {
    const reader = await makeUser(t, org.realm);
    const left = await makeChannel(t, org.realm, { subscribers: [org.owner.user, reader.user] });
    const stayed = await makeChannel(t, org.realm, { subscribers: [org.owner.user, reader.user] });
    const inLeft = await postToChannel(t, org.realm, org.owner.user, left, 't', 'one');
    const inStayed = await postToChannel(t, org.realm, org.owner.user, stayed, 't', 'two');
    const both = json([inLeft, inStayed]);
    for (const flag of ['read', 'starred']) {
      const add = await org.as(reader).post('/messages/flags', {
        messages: both,
        op: 'add',
        flag,
      });
      expect(add.body).toEqual({ result: 'success', msg: '', messages: [inLeft, inStayed] });
    }
    await org.as(reader).delete('/users/me/subscriptions', { subscriptions: json([left.name]) });
    const client = await connect(reader, { event_types: json(['update_message_flags']) });

    const unread = await org.as(reader).post('/messages/flags', {
      messages: both,
      op: 'remove',
      flag: 'read',
    });
    expect(unread.body).toEqual({
      result: 'success',
      msg: '',
      messages: [inStayed],
      ignored_because_not_subscribed_channels: [left.id],
    });
    const flags = async (id: number) =>
      Number(
        (
          await t.db.userMessage.findUniqueOrThrow({
            where: { userId_messageId: { userId: reader.user.id, messageId: id } },
          })
        ).flags,
      );
    expect((await flags(inLeft)) & 1).toBe(1);
    expect((await flags(inStayed)) & 1).toBe(0);
    const [event] = await take(client, ofType('update_message_flags'));
    expect(event).toMatchObject({ op: 'remove', flag: 'read', messages: [inStayed] });

    const unstar = await org.as(reader).post('/messages/flags', {
      messages: both,
      op: 'remove',
      flag: 'starred',
    });
    expect(unstar.body).toEqual({ result: 'success', msg: '', messages: [inLeft, inStayed] });
  });
});

describe('Reaction: none -> present (POST /messages/{message_id}/reactions)', () => {
  // reactions.test.ts covers the row, the outbox event and REACTION_ALREADY_EXISTS; here the
  // event as another subscriber's client receives it, and that a duplicate sends none.
  it('reaches other subscribers once; the duplicate is refused and sends nothing', async () => {
    const chan = await makeChannel(t, org.realm, { subscribers: [org.owner.user, member.user] });
    const id = await postToChannel(t, org.realm, org.owner.user, chan, 'r', 'react');
    const client = await connect(org.owner, { event_types: json(['reaction']) });
    const add = await org.as(member).post(`/messages/${id}/reactions`, { emoji_name: 'tada' });
    expect(add.body).toEqual({ result: 'success', msg: '' });
    expect(await take(client, ofType('reaction'))).toEqual([
      {
        type: 'reaction',
        op: 'add',
        message_id: id,
        user_id: member.user.id,
        user: expect.objectContaining({ user_id: member.user.id }),
        emoji_name: 'tada',
        emoji_code: '1f389',
        reaction_type: 'unicode_emoji',
      },
    ]);
    const dup = await org.as(member).post(`/messages/${id}/reactions`, { emoji_name: 'tada' });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({
      result: 'error',
      code: 'REACTION_ALREADY_EXISTS',
      msg: 'Reaction already exists.',
    });
    expect(await nothingLike(client, ofType('reaction'))).toBe(true);
    expect(await t.db.reaction.count({ where: { messageId: id } })).toBe(1);
  });
});

describe('Presence: any -> active or idle as reported (POST /users/me/presence)', () => {
  // presence.test.ts covers formats, events and limits; here the reported status as others read it.
  it('shows each reported status to other users', async () => {
    const who = await makeUser(t, org.realm);
    const statusSeen = async () =>
      (await org.as(member).get(`/users/${who.user.id}/presence`)).body.presence.aggregated
        .status as string;
    expect((await org.as(who).post('/users/me/presence', { status: 'active' })).status).toBe(200);
    expect(await statusSeen()).toBe('active');
    // The client was last in use ten minutes ago and now reports idle.
    const longAgo = new Date(Date.now() - 10 * 60_000);
    await t.db.userPresence.update({
      where: { userId: who.user.id },
      data: { lastActiveTime: longAgo, lastConnectedTime: longAgo },
    });
    await org.as(who).post('/users/me/presence', { status: 'idle' });
    expect(await statusSeen()).toBe('idle');
    const modern = await org.as(member).post('/users/me/presence', {
      status: 'active',
      last_update_id: -1,
    });
    const entry = modern.body.presences[String(who.user.id)];
    expect(entry.idle_timestamp - entry.active_timestamp).toBeGreaterThanOrEqual(590);
    await org.as(who).post('/users/me/presence', { status: 'active' });
    expect(await statusSeen()).toBe('active');
  });
});

describe('Scheduled message: none -> scheduled -> sent (POST /scheduled_messages)', () => {
  // scheduled-messages.test.ts covers creation, errors and the queued job; the delivery tests
  // run the job directly. Here the whole way from the HTTP request to the recipient's client.
  it('is sent at the scheduled time as a new message with its own ID', async () => {
    const recipient = await makeUser(t, org.realm);
    const chan = await makeChannel(t, org.realm, { subscribers: [member.user, recipient.user] });
    const watcher = await connect(recipient, { event_types: json(['message']) });
    const sender = await connect(member, { event_types: json(['scheduled_messages']) });
    const at = Math.floor(Date.now() / 1000) + 2;
    const res = await org.as(member).post('/scheduled_messages', {
      type: 'stream',
      to: chan.id,
      topic: 'later',
      content: 'from the past',
      scheduled_delivery_timestamp: at,
    });
    expect(res.status).toBe(200);
    const scheduledId = res.body.scheduled_message_id as number;
    const [added] = await take(sender, ofType('scheduled_messages', { op: 'add' }));
    expect(added.scheduled_messages).toEqual([
      expect.objectContaining({ scheduled_message_id: scheduledId, failed: false }),
    ]);
    const [delivered] = await take(
      watcher,
      (e) =>
        e.type === 'message' && (e.message as { sender_id: number }).sender_id === member.user.id,
    );
    const message = delivered.message as {
      id: number;
      content: string;
      sender_id: number;
      timestamp: number;
    };
    expect(message).toMatchObject({ content: 'from the past', sender_id: member.user.id });
    expect(message.timestamp).toBeGreaterThanOrEqual(at);
    const row = await t.db.scheduledMessage.findUniqueOrThrow({ where: { id: scheduledId } });
    expect(row).toMatchObject({ delivered: true, deliveredMessageId: message.id });
    const fetched = await org.as(recipient).get(`/messages/${message.id}`);
    expect(fetched.body.message).toMatchObject({ id: message.id, subject: 'later' });
    await take(
      sender,
      ofType('scheduled_messages', { op: 'remove', scheduled_message_id: scheduledId }),
    );
    expect((await org.as(member).get('/scheduled_messages')).body.scheduled_messages).toEqual([]);
  }, 20000);
});

describe('User settings: any -> new values (PATCH /settings)', () => {
  // settings.test.ts covers the outbox events per changed property; here what the client gets.
  it('sends one user_settings event per changed property to the user only', async () => {
    const who = await makeUser(t, org.realm);
    const mine = await connect(who, { event_types: json(['user_settings']) });
    const other = await connect(member, { event_types: json(['user_settings']) });
    const res = await org.as(who).patch('/settings', {
      web_font_size_px: 18,
      default_language: 'de',
      left_side_userlist: false, // unchanged
    });
    expect(res.status).toBe(200);
    expect(await take(mine, ofType('user_settings'), 2)).toEqual([
      { type: 'user_settings', op: 'update', property: 'web_font_size_px', value: 18 },
      {
        type: 'user_settings',
        op: 'update',
        property: 'default_language',
        value: 'de',
        language_name: 'German',
      },
    ]);
    expect(await nothingLike(mine, ofType('user_settings'))).toBe(true);
    expect(await nothingLike(other, ofType('user_settings'))).toBe(true);
    const me = await org.as(who).get('/users/me');
    expect(me.status).toBe(200);
    const stored = await t.db.user.findUniqueOrThrow({ where: { id: who.user.id } });
    expect(stored).toMatchObject({
      webFontSizePx: 18,
      defaultLanguage: 'de',
      leftSideUserlist: false,
    });
  });
});
