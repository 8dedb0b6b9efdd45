import type { Stream } from '../../../generated/prisma/client';
import { Role } from '../../../libs/domain/users/roles';
import type { EventBody } from '../../../test/events-factories';
import { makeUser, type TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { makeChannel } from '../../../test/channel-factories';
import { expectOpenApiResponse } from '../../../test/openapi';
import { eventsAfter, outboxMark, ofType } from '../../../test/outbox';
import type { Organization } from '../../../test/organization';
import { guestAccessOrganization } from '../../../test/guest-access-organization';

/**
 * Presence, user status, subscription changes and user creation under
 * `can_access_all_users_group` = role:members: the guest shares #shared with Alice and nothing with
 * Bob, so the guest may access Alice (and every bot) but not Bob.
 */
let t: TestContext;
let org: Organization;
let alice: TestUser;
let bob: TestUser;
let guest: TestUser;
let bot: TestUser;
let shared: Stream;

beforeAll(async () => {
  org = await guestAccessOrganization();
  ({ t } = org);
  ({ alice, bob, guest, bot } = org.users);
  ({ shared } = org.channels);
  const res = await org.as(org.owner).patch('/realm', {
    can_access_all_users_group: JSON.stringify({ new: org.systemGroups['role:members'] }),
  });
  expect(res.status).toBe(200);
});
afterAll(() => org.close());

describe('presence', () => {
  it('sends a presence event only to users who can access the user', async () => {
    const mark = await outboxMark(t);
    for (const who of [bob, alice]) {
      const res = await org.as(who).post('/users/me/presence', { status: 'active' });
      expect(res.status).toBe(200);
    }
    const [ofBob, ofAlice] = ofType(await eventsAfter(t, mark), 'presence');
    expect(ofBob.event.user_id).toBe(bob.user.id);
    expect(ofBob.users).toContain(alice.user.id);
    expect(ofBob.users).not.toContain(guest.user.id);
    expect(ofAlice.event.user_id).toBe(alice.user.id);
    expect(ofAlice.users).toContain(guest.user.id);
  });

  it('leaves inaccessible users out of the guest’s presence data', async () => {
    const realmWide = await org.as(guest).get('/realm/presence');
    expect(realmWide.status).toBe(200);
    expect(Object.keys(realmWide.body.presences)).toContain(alice.email);
    expect(Object.keys(realmWide.body.presences)).not.toContain(bob.email);
    const forMember = await org.as(alice).get('/realm/presence');
    expect(Object.keys(forMember.body.presences)).toContain(bob.email);

    const own = await org.as(guest).post('/users/me/presence', {
      status: 'active',
      slim_presence: true,
    });
    expect(Object.keys(own.body.presences)).toContain(String(alice.user.id));
    expect(Object.keys(own.body.presences)).not.toContain(String(bob.user.id));

    const state = await org.register(guest, {
      fetch_event_types: JSON.stringify(['presence']),
      slim_presence: 'true',
    });
    const ids = Object.keys(state.presences as object);
    expect(ids).toContain(String(alice.user.id));
    expect(ids).not.toContain(String(bob.user.id));
    const memberState = await org.register(alice, {
      fetch_event_types: JSON.stringify(['presence']),
      slim_presence: 'true',
    });
    expect(Object.keys(memberState.presences as object)).toContain(String(bob.user.id));
  });

  it('refuses GET /users/{id}/presence for an inaccessible user', async () => {
    const refused = await org.as(guest).get(`/users/${bob.user.id}/presence`);
    expect(refused.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Insufficient permission',
    });
    const allowed = await org.as(guest).get(`/users/${alice.user.id}/presence`);
    expect(allowed.status).toBe(200);
  });
});

describe('user status', () => {
  it('sends user_status only to users who can access the user, bots included', async () => {
    const mark = await outboxMark(t);
    await org.as(bob).post('/users/me/status', { status_text: 'Out to lunch' });
    await org.as(alice).post('/users/me/status', { status_text: 'Writing' });
    const [ofBob, ofAlice] = ofType(await eventsAfter(t, mark), 'user_status');
    expect(ofBob.event).toEqual({
      type: 'user_status',
      user_id: bob.user.id,
      status_text: 'Out to lunch',
    });
    expect(ofBob.users).toEqual(expect.arrayContaining([alice.user.id, bot.user.id]));
    expect(ofBob.users).not.toContain(guest.user.id);
    expect(ofAlice.users).toContain(guest.user.id);
  });

  it('leaves inaccessible users out of register and refuses GET /users/{id}/status', async () => {
    const state = await org.register(guest, {
      fetch_event_types: JSON.stringify(['user_status']),
    });
    expect(state.user_status).toEqual({ [alice.user.id]: { status_text: 'Writing' } });
    const memberState = await org.register(alice, {
      fetch_event_types: JSON.stringify(['user_status']),
    });
    expect(memberState.user_status).toMatchObject({
      [bob.user.id]: { status_text: 'Out to lunch' },
    });
    const refused = await org.as(guest).get(`/users/${bob.user.id}/status`);
    expect(refused.body.msg).toBe('Insufficient permission');
    const allowed = await org.as(guest).get(`/users/${alice.user.id}/status`);
    expect(allowed.body.status).toEqual({ status_text: 'Writing' });
  });
});

describe('bots', () => {
  it('receive realm_user and organization-wide events like other users', async () => {
    const mark = await outboxMark(t);
    await org.as(org.owner).patch(`/users/${bob.user.id}`, { full_name: 'Bob B' });
    await org.as(org.owner).patch('/realm', { description: 'Bots listen too' });
    const [rename] = ofType(await eventsAfter(t, mark), 'realm_user', 'update');
    expect(rename.users).toContain(bot.user.id);
    expect(rename.users).not.toContain(guest.user.id);
    const [realm] = ofType(await eventsAfter(t, mark), 'realm');
    expect(realm.users).toContain(bot.user.id);
  });
});

describe('a guest subscribed to or unsubscribed from a channel', () => {
  let club: Stream;
  let other: TestUser;

  it('meets its subscribers with realm_user add events, before the peer events', async () => {
    other = await makeUser(t, org.realm, { role: Role.GUEST, fullName: 'Otto Guest' });
    club = await makeChannel(t, org.realm, {
      subscribers: [bob.user, alice.user, other.user, bot.user],
    });
    const mark = await outboxMark(t);
    const res = await org.as(org.owner).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: club.name }]),
      principals: JSON.stringify([guest.user.id]),
    });
    expect(res.status).toBe(200);
    const events = await eventsAfter(t, mark);
    const adds = ofType(events, 'realm_user', 'add');
    // The guest meets Bob and Otto (Alice was already shared, bots always are); Otto meets Gus.
    expect(adds.map((e) => [e.users, (e.event.person as { user_id: number }).user_id])).toEqual([
      [[guest.user.id], bob.user.id],
      [[other.user.id], guest.user.id],
      [[guest.user.id], other.user.id],
    ]);
    expect(adds[0].event.person).toMatchObject({ full_name: 'Bob B', email: bob.email });
    for (const e of adds) {
      expectOpenApiResponse('/events', 'get', {
        result: 'success',
        msg: '',
        queue_id: 'q',
        events: [{ id: 0, ...e.event }],
      });
    }
    const peerAdd = events.findIndex((e) => e.event.op === 'peer_add');
    expect(events[peerAdd].users).toEqual(expect.arrayContaining([bob.user.id, other.user.id]));
    expect(peerAdd).toBeGreaterThan(events.indexOf(adds[adds.length - 1]));
    expect((await org.as(guest).get(`/users/${bob.user.id}`)).status).toBe(200);
  });

  it('loses them again with realm_user remove events on unsubscribing', async () => {
    const mark = await outboxMark(t);
    const res = await org.as(guest).delete('/users/me/subscriptions', {
      subscriptions: JSON.stringify([club.name]),
    });
    expect(res.body).toMatchObject({ removed: [club.name] });
    const events = await eventsAfter(t, mark);
    const removes = ofType(events, 'realm_user', 'remove');
    expect(removes.map((e) => [e.users, e.event.person])).toEqual([
      [[guest.user.id], { user_id: bob.user.id, full_name: 'Unknown user' }],
      [[other.user.id], { user_id: guest.user.id, full_name: 'Unknown user' }],
      [[guest.user.id], { user_id: other.user.id, full_name: 'Unknown user' }],
    ]);
    expect(ofType(events, 'subscription', 'peer_remove')).toHaveLength(1);
    const refused = await org.as(guest).get(`/users/${bob.user.id}`);
    expect(refused.body.msg).toBe('Insufficient permission');
  });

  it('tells only the guest when a member joins a channel the guest is in', async () => {
    const mark = await outboxMark(t);
    await org.as(org.owner).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: shared.name }]),
      principals: JSON.stringify([bob.user.id]),
    });
    const events = await eventsAfter(t, mark);
    // Bob now shares #shared with the guest: only that pair's view changes.
    expect(ofType(events, 'realm_user').map((e) => [e.users, e.event.op])).toEqual([
      [[guest.user.id], 'add'],
    ]);
    await org.as(bob).delete('/users/me/subscriptions', {
      subscriptions: JSON.stringify([shared.name]),
    });
  });
});

describe('a new user created with subscriptions', () => {
  it('is announced to the channel’s subscribers with peer_add after the realm_user add', async () => {
    const lobby = await makeChannel(t, org.realm, { subscribers: [alice.user, guest.user] });
    await t.db.defaultStream.create({ data: { realmId: org.realm.id, streamId: lobby.id } });
    const mark = await outboxMark(t);
    const dana = await makeUser(t, org.realm, { fullName: 'Dana' });
    await t.db.defaultStream.deleteMany({ where: { realmId: org.realm.id } });
    const events = await eventsAfter(t, mark);
    const peer = ofType(events, 'subscription', 'peer_add');
    expect(peer.map((e) => e.event)).toEqual([
      { type: 'subscription', op: 'peer_add', stream_ids: [lobby.id], user_ids: [dana.user.id] },
    ]);
    expect(peer[0].users).toEqual(
      expect.arrayContaining([alice.user.id, guest.user.id, bob.user.id, org.owner.user.id]),
    );
    expect(peer[0].users).not.toContain(dana.user.id);
    const adds = ofType(events, 'realm_user', 'add');
    // The guest shares #lobby with Dana, so meets the real user.
    expect(adds.find((e) => e.users.includes(guest.user.id))?.event.person).toMatchObject({
      full_name: 'Dana',
    });
    expect(events.indexOf(peer[0])).toBeGreaterThan(events.indexOf(adds[adds.length - 1]));
  });

  it('announces the channels of a redeemed invitation the same way', async () => {
    const invited = await makeChannel(t, org.realm, { subscribers: [bob.user] });
    const email = `invitee-${Date.now()}@example.com`;
    const sent = await org.as(org.owner).post('/invites', {
      invitee_emails: email,
      stream_ids: JSON.stringify([invited.id]),
    });
    expect(sent.status).toBe(200);
    const { confirmationKey } = await t.db.invitation.findFirstOrThrow({ where: { email } });
    const mark = await outboxMark(t);
    const res = await org.as(null).post('/invites/redeem', {
      key: confirmationKey,
      full_name: 'Ivy Invitee',
    });
    expect(res.status).toBe(200);
    const peer = ofType(await eventsAfter(t, mark), 'subscription', 'peer_add');
    expect(peer.map((e) => e.event)).toEqual([
      {
        type: 'subscription',
        op: 'peer_add',
        stream_ids: [invited.id],
        user_ids: [res.body.user_id],
      },
    ]);
    expect(peer[0].users).toContain(bob.user.id);
  });
});

describe('queues with the user_list_incomplete capability', () => {
  it('do not receive the "Unknown user" add for a user the owner cannot access', async () => {
    const form = { event_types: JSON.stringify(['realm_user']) };
    const complete = await org.register(guest, form);
    const incomplete = await org.register(guest, {
      ...form,
      client_capabilities: JSON.stringify({ user_list_incomplete: true }),
    });
    const erin = await makeUser(t, org.realm, { fullName: 'Erin' });
    // A later event both queues receive, so the incomplete queue is known to be up to date.
    await org.as(org.owner).patch(`/users/${alice.user.id}`, { full_name: 'Alice A' });
    const done = (events: EventBody[]) => events.some((e) => e.op === 'update');
    const full = await org.eventsUntil(guest, complete.queue_id, done);
    expect(full.map((e) => [e.op, (e.person as { user_id: number }).user_id])).toEqual([
      ['add', erin.user.id],
      ['update', alice.user.id],
    ]);
    expect(full[0].person).toMatchObject({ full_name: 'Unknown user' });
    expect(full[0]).not.toHaveProperty('internal');
    const partial = await org.eventsUntil(guest, incomplete.queue_id, done);
    expect(partial.map((e) => [e.op, (e.person as { user_id: number }).user_id])).toEqual([
      ['update', alice.user.id],
    ]);
  });
});
