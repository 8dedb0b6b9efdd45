import type { TestUser } from '../../../test/factories';
import { type Organization, organization } from '../../../test/organization';
import { startPushBouncer, type PushBouncerStandIn } from '../../../test/push-bouncer';
import { Trigger } from '../notifications/notification-rules';
import { PushKind } from './push-kind';
import { sendPushNotifications } from './send-push-notifications';

/**
 * Issue 46: the bouncer's `can_push` answer is honoured as Zulip does: the organization's
 * push_notifications_enabled follows it, clients learn of a change at once, and /register says it.
 */
let bouncer: PushBouncerStandIn;
let org: Organization<'alice' | 'bob'>;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  bouncer = await startPushBouncer();
  org = await organization({
    env: bouncer.env,
    events: true,
    members: { alice: 'member', bob: 'member' },
  });
  ({ alice, bob } = org.users);
  await org.t.db.pushDeviceToken.create({
    data: { userId: bob.user.id, kind: PushKind.FCM, token: 'bob-phone' },
  });
  // Registered with the bouncer too, as the push-device job would have done.
  bouncer.devices.push({
    userUuid: bob.user.uuid,
    userId: bob.user.id,
    realmUuid: org.realm.uuid,
    kind: PushKind.FCM,
    token: 'bob-phone',
    iosAppId: null,
  });
});
afterAll(async () => {
  await org.close();
  await bouncer.close();
});
afterEach(() => expect(bouncer.problems).toEqual([]));

/** A direct message from Alice to Bob, pushed to Bob as the push-message job does. */
async function pushedMessage(content: string): Promise<void> {
  const res = await org
    .as(alice)
    .post('/messages', { type: 'direct', to: JSON.stringify([bob.user.id]), content })
    .expect(200);
  const before = bouncer.notifications.length;
  const outcome = await sendPushNotifications(org.t, {
    messageId: res.body.id as number,
    recipients: [{ userId: bob.user.id, trigger: Trigger.DIRECT_MESSAGE }],
  });
  expect(outcome.pushed).toBe(1);
  expect(bouncer.notifications.length).toBe(before + 1);
}

const realmRow = () =>
  org.t.db.realm.findUniqueOrThrow({
    where: { id: org.realm.id },
    select: { pushNotificationsEnabled: true, pushNotificationsEnabledEndTime: true },
  });

describe("the bouncer's can_push", () => {
  it('is reported enabled while the bouncer allows pushes, and nothing is written', async () => {
    const queue = await org.register(bob, { event_types: JSON.stringify(['realm']) });
    await pushedMessage('still pushing');
    expect(await realmRow()).toEqual({
      pushNotificationsEnabled: true,
      pushNotificationsEnabledEndTime: null,
    });
    const events = await org.eventsUntil(bob, queue.queue_id, () => false, 300);
    expect(events.filter((e) => e.type === 'realm')).toEqual([]);
    const state = await org.register(bob, { fetch_event_types: JSON.stringify(['realm']) });
    expect(state.realm_push_notifications_enabled).toBe(true);
  });

  it('turns push off for the organization when the bouncer says no, and back on', async () => {
    const queue = await org.register(bob, { event_types: JSON.stringify(['realm']) });
    const end = 1_900_000_000;
    bouncer.realmAnswer = { can_push: false, expected_end_timestamp: end };
    await pushedMessage('the plan ended');
    expect(await realmRow()).toEqual({
      pushNotificationsEnabled: false,
      pushNotificationsEnabledEndTime: new Date(end * 1000),
    });
    const told = await org.eventsUntil(bob, queue.queue_id, (got) =>
      got.some((e) => e.type === 'realm'),
    );
    expect(told.find((e) => e.type === 'realm')).toMatchObject({
      op: 'update_dict',
      property: 'default',
      data: { push_notifications_enabled: false, push_notifications_enabled_end_timestamp: end },
    });
    const off = await org.register(alice, { fetch_event_types: JSON.stringify(['realm']) });
    expect(off.realm_push_notifications_enabled).toBe(false);
    expect(off.realm_push_notifications_enabled_end_timestamp).toBe(end);

    bouncer.realmAnswer = { can_push: true, expected_end_timestamp: null };
    await pushedMessage('the plan renewed');
    expect(await realmRow()).toEqual({
      pushNotificationsEnabled: true,
      pushNotificationsEnabledEndTime: null,
    });
    const on = await org.register(alice, { fetch_event_types: JSON.stringify(['realm']) });
    expect(on.realm_push_notifications_enabled).toBe(true);
    expect(on.realm_push_notifications_enabled_end_timestamp).toBeNull();
  });
});
