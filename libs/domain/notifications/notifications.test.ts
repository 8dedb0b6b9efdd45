import { registerPushServerCommand } from '../../../apps/cli/commands/push';
import { jobHandlers } from '../../../apps/worker/handlers';
import { startWorkers, type RunningWorkers } from '../../../apps/worker/start-workers';
import type { TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { type Organization, organization } from '../../../test/organization';
import { startPushBouncer, type PushBouncerStandIn } from '../../../test/push-bouncer';
import { startSmtpReceiver, waitFor, type SmtpReceiver } from '../../../test/worker-factories';
import { expectOpenApiResponse } from '../../../test/openapi';
import { JobName, removeJob } from '../../jobs';
import { Flag } from '../messages/flags';
import { inTransaction } from '../../events/outbox';
import { prepareMessage, writeMessage } from '../messages/send-message';
import { notifyMessageJobId } from './enqueue-notifications';
import { sendPushNotifications } from '../push/send-push-notifications';
import { decideMessageNotifications } from './decide-notifications';
import { sendDueMissedMessageEmails } from './send-missed-message-emails';

/*
 * The whole path, as clients and the outside world see it: messages sent through the API, the
 * real workers deciding and sending, emails arriving at a real SMTP server on loopback and
 * pushes at a bouncer stand-in on loopback that checks every request's format.
 */

let smtp: SmtpReceiver;
let bouncer: PushBouncerStandIn;
let org: Organization<'alice' | 'bob' | 'carol' | 'dave' | 'erin', 'design'>;
let t: TestContext;
let workers: RunningWorkers;
let alice: TestUser, bob: TestUser, carol: TestUser, dave: TestUser, erin: TestUser;

/** Short batching periods keep the test fast; the API accepts 120 s at least. */
const BATCH_SECONDS = 2;

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  bouncer = await startPushBouncer();
  org = await organization({
    env: { ...smtp.env, ...bouncer.env },
    realm: { name: 'Acme Chat' },
    members: { alice: 'member', bob: 'member', carol: 'member', dave: 'member', erin: 'member' },
    channels: { design: ['alice', 'bob', 'carol', 'dave', 'erin'] },
  });
  ({ t } = org);
  ({ alice, bob, carol, dave, erin } = org.users);
  await t.db.user.updateMany({
    where: { realmId: org.realm.id },
    data: { emailNotificationsBatchingPeriodSeconds: BATCH_SECONDS },
  });
  workers = startWorkers(t, jobHandlers, { lockDurationMs: 5000, stalledIntervalMs: 5000 });
  await workers.scheduled;
  // Devices, registered through the API and relayed to the bouncer by a job.
  await org.as(bob).post('/users/me/android_gcm_reg_id', { token: 'bob-phone' }).expect(200);
  await org
    .as(carol)
    .post('/users/me/apns_device_token', { token: 'ca401e', appid: 'org.zulip.Zulip' })
    .expect(200);
  await org.as(dave).post('/users/me/android_gcm_reg_id', { token: 'dave-phone' }).expect(200);
  await org.as(erin).post('/users/me/android_gcm_reg_id', { token: 'erin-phone' }).expect(200);
  await waitFor(async () => bouncer.devices.length === 4);
}, 60000);

afterAll(async () => {
  await workers.close();
  await org.close();
  await smtp.close();
  await bouncer.close();
});

afterEach(() => expect(bouncer.problems).toEqual([]));

const unfold = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/\r\n/g, '\n');
const mailsTo = (user: TestUser) =>
  smtp.mails.filter((m) => m.to.includes(user.user.deliveryEmail)).map((m) => unfold(m.raw));
const pushesTo = (user: TestUser, event = 'message') =>
  bouncer.notifications.filter(
    (n) => n.gcm.user_id === user.user.id && (n.gcm.event === event || event === 'any'),
  );
const pushOf = (user: TestUser, messageId: number) =>
  waitFor(async () => pushesTo(user).find((n) => n.gcm.zulip_message_id === messageId), 15000);

async function send(from: TestUser, form: Record<string, string>): Promise<number> {
  const res = await org.as(from).post('/messages', form).expect(200);
  return res.body.id as number;
}
const dm = (from: TestUser, to: TestUser[], content: string) =>
  send(from, { type: 'direct', to: JSON.stringify(to.map((u) => u.user.id)), content });
const post = (from: TestUser, topic: string, content: string) =>
  send(from, { type: 'stream', to: 'design', topic, content });

/** What the repeating notifications-sweep job runs every minute. */
const runSweep = async () => {
  const sweep = jobHandlers.find((h) => h.name === JobName.NOTIFICATIONS_SWEEP);
  await sweep?.handle(t, {} as never, { attempt: 1, isLastAttempt: true });
};

/** Waits until the decision job for the message has run (its rows or pushes exist, or none will). */
const decided = (messageId: number) =>
  waitFor(
    async () =>
      !(await t.redis.exists(
        `{${t.config.redisPrefix}bull}:notifications:notify-message-${messageId}`,
      )),
  );

describe('a direct message to an away user', () => {
  it('sends a push at once and, after the batching period, an email', async () => {
    const id = await dm(alice, [bob], 'Are you **around**? <3');
    const push = await pushOf(bob, id);
    expect(push.tokens).toEqual(['bob-phone']);
    expect(push.gcm).toMatchObject({
      event: 'message',
      recipient_type: 'private',
      sender_full_name: 'Alice',
      content: 'Are you around? <3',
      realm_name: 'Acme Chat',
    });
    expect(push.gcmOptions).toEqual({ priority: 'high' });
    expect(push.apns).toMatchObject({
      alert: { title: 'Alice', subtitle: '', body: 'Are you around? <3' },
      custom: { zulip: { message_ids: [id], recipient_type: 'private' } },
    });

    const mail = await waitFor(async () => mailsTo(bob).find((m) => m.includes('Are you')), 15000);
    expect(mail).toContain('Subject: DMs with Alice');
    expect(mail).toContain('Content-Type: text/plain');
    expect(mail).toContain('Content-Type: text/html');
    expect(mail).toContain('<strong>around</strong>');
    expect(mail).toContain(`http://${org.host}/#narrow/dm/${alice.user.id}-Alice`);
    expect(mail).toContain(`http://${org.host}/#settings/notifications`);
    expect(mail).toContain('reply-by-email is not available');
    expect(mail).toMatch(/Message-ID: <missed-\d+-\d+@/i);
  });

  it('batches the messages of one conversation into one email', async () => {
    const before = mailsTo(carol).length;
    const first = await dm(alice, [carol], 'first of two');
    const second = await dm(alice, [carol], 'second of two');
    await pushOf(carol, second);
    const mail = await waitFor(
      async () => mailsTo(carol).find((m) => m.includes('first of two')),
      15000,
    );
    expect(mail).toContain('second of two');
    expect(mailsTo(carol).length).toBe(before + 1);
    expect(first).toBeLessThan(second);
  });
});

describe('mentions and followed topics', () => {
  it('a personal mention in a channel: email and push, naming the mention', async () => {
    const id = await post(alice, 'plans', '@**Carol** please review');
    const push = await pushOf(carol, id);
    expect(push.tokens).toEqual(['ca401e']);
    expect(push.apns).toMatchObject({
      alert: { title: '#design > plans', subtitle: 'Alice mentioned you:' },
    });
    expect(push.gcm).toMatchObject({ recipient_type: 'stream', stream: 'design', topic: 'plans' });
    const mail = await waitFor(
      async () => mailsTo(carol).find((m) => m.includes('please review')),
      15000,
    );
    expect(mail).toContain('Subject: #design > plans');
    expect(mail).toContain(`/#narrow/channel/${org.channels.design.id}-design/topic/plans`);
    // Others in the channel, not mentioned and with channel notifications off, get nothing.
    await decided(id);
    expect(pushesTo(dave).some((n) => n.gcm.zulip_message_id === id)).toBe(false);
  });

  it('a message in a followed topic notifies its follower', async () => {
    await org
      .as(dave)
      .post('/user_topics', {
        stream_id: org.channels.design.id,
        topic: 'roadmap',
        visibility_policy: 3,
      })
      .expect(200);
    const id = await post(alice, 'roadmap', 'Q3 roadmap draft is up');
    await pushOf(dave, id);
    await waitFor(async () => mailsTo(dave).find((m) => m.includes('Q3 roadmap')), 15000);
    await decided(id);
    expect(pushesTo(bob).some((n) => n.gcm.zulip_message_id === id)).toBe(false);
  });
});

describe('muted topics', () => {
  it('send nothing, even where the subscription asks for channel notifications', async () => {
    for (const property of ['push_notifications', 'email_notifications']) {
      await org
        .as(erin)
        .post('/users/me/subscriptions/properties', {
          subscription_data: JSON.stringify([
            { stream_id: org.channels.design.id, property, value: true },
          ]),
        })
        .expect(200);
    }
    await org
      .as(erin)
      .post('/user_topics', {
        stream_id: org.channels.design.id,
        topic: 'noise',
        visibility_policy: 1,
      })
      .expect(200);
    // A channel-wide mention in the muted topic: Bob is told, Erin who muted it is not.
    const muted = await post(alice, 'noise', '@**all** lunch is here');
    await pushOf(bob, muted);
    // The same subscription settings in another topic do notify Erin.
    const other = await post(alice, 'elsewhere', 'unmuted topic message');
    await pushOf(erin, other);
    await waitFor(
      async () => mailsTo(erin).find((m) => m.includes('unmuted topic message')),
      15000,
    );
    await waitFor(async () => mailsTo(bob).find((m) => m.includes('lunch is here')), 15000);
    expect(pushesTo(erin).some((n) => n.gcm.zulip_message_id === muted)).toBe(false);
    expect(mailsTo(erin).some((m) => m.includes('lunch is here'))).toBe(false);
  });
});

describe('a message read before the batching period ends', () => {
  it('sends no email, and removes the push from the devices', async () => {
    const id = await dm(alice, [bob], 'read me quickly');
    await pushOf(bob, id);
    await org
      .as(bob)
      .post('/messages/flags', { messages: JSON.stringify([id]), op: 'add', flag: 'read' })
      .expect(200);
    const removal = await waitFor(async () =>
      pushesTo(bob, 'remove').find((n) =>
        String(n.gcm.zulip_message_ids).split(',').includes(String(id)),
      ),
    );
    expect(removal.gcm).toMatchObject({ event: 'remove', zulip_message_id: id });
    expect(removal.gcmOptions).toEqual({ priority: 'normal' });
    expect(removal.apns).toMatchObject({ custom: { zulip: { event: 'remove' } } });
    const row = await t.db.userMessage.findFirstOrThrow({
      where: { userId: bob.user.id, messageId: id },
    });
    expect(Number(row.flags) & Flag.active_mobile_push_notification).toBe(0);
    // Past the period, the row is consumed without an email.
    await waitFor(async () => {
      const r = await t.db.missedMessageEmail.findFirst({
        where: { userId: bob.user.id, messageId: id },
      });
      return r?.sentAt ? r : null;
    }, 15000);
    expect(mailsTo(bob).some((m) => m.includes('read me quickly'))).toBe(false);
  });
});

describe('a message deleted before the batching period ends', () => {
  it('sends no email, and removes the push', async () => {
    const id = await dm(alice, [carol], 'sent by mistake');
    await pushOf(carol, id);
    await org.as(alice).delete(`/messages/${id}`).expect(200);
    await waitFor(async () =>
      pushesTo(carol, 'remove').find((n) => n.gcm.zulip_message_ids === String(id)),
    );
    await waitFor(
      async () => (await t.db.missedMessageEmail.count({ where: { messageId: id } })) === 0,
      15000,
    );
    expect(mailsTo(carol).some((m) => m.includes('sent by mistake'))).toBe(false);
  });
});

describe("the user's settings", () => {
  it('turned off: no email and no push', async () => {
    await org
      .as(dave)
      .patch('/settings', {
        enable_offline_email_notifications: false,
        enable_offline_push_notifications: false,
      })
      .expect(200);
    const id = await dm(alice, [bob, dave], 'group hello everyone');
    await pushOf(bob, id);
    await waitFor(async () => mailsTo(bob).find((m) => m.includes('group hello')), 15000);
    expect(mailsTo(bob).find((m) => m.includes('group hello'))).toContain(
      'Subject: Group DMs with Alice, Dave',
    );
    expect(pushesTo(bob).find((n) => n.gcm.zulip_message_id === id)?.gcm.pm_users).toBe(
      [alice.user.id, bob.user.id, dave.user.id].join(','),
    );
    expect(pushesTo(dave).some((n) => n.gcm.zulip_message_id === id)).toBe(false);
    expect(mailsTo(dave).some((m) => m.includes('group hello'))).toBe(false);
    await org
      .as(dave)
      .patch('/settings', {
        enable_offline_email_notifications: true,
        enable_offline_push_notifications: true,
      })
      .expect(200);
  });

  it('a user who is not away gets no email, and a push only with online push on', async () => {
    const registered = await org.register(erin, { event_types: JSON.stringify(['message']) });
    expect(registered.queue_id).toBeTruthy();
    await org.as(erin).post('/users/me/presence', { status: 'active' }).expect(200);
    await org.as(erin).patch('/settings', { enable_online_push_notifications: false }).expect(200);
    const quiet = await dm(alice, [erin], 'while you are here');
    await decided(quiet);
    expect(await t.db.missedMessageEmail.count({ where: { messageId: quiet } })).toBe(0);
    expect(pushesTo(erin).some((n) => n.gcm.zulip_message_id === quiet)).toBe(false);
    await org.as(erin).patch('/settings', { enable_online_push_notifications: true }).expect(200);
    const pushed = await dm(alice, [erin], 'online push please');
    await pushOf(erin, pushed);
    expect(await t.db.missedMessageEmail.count({ where: { messageId: pushed } })).toBe(0);
    await t.db.userPresence.deleteMany({ where: { userId: erin.user.id } });
  });
});

describe('durability', () => {
  it('one message never produces two emails or two pushes for the same user', async () => {
    const id = await dm(alice, [carol], 'exactly once please');
    await pushOf(carol, id);
    await waitFor(async () => mailsTo(carol).find((m) => m.includes('exactly once please')), 15000);
    // The decision and the push job run again (a retry, or jobs re-created after Redis lost them).
    await decideMessageNotifications(t, { messageId: id });
    await sendPushNotifications(t, {
      messageId: id,
      recipients: [{ userId: carol.user.id, trigger: 'direct_message' }],
    });
    await sendDueMissedMessageEmails(t, Date.now() + BATCH_SECONDS * 1000 + 1000);
    expect(pushesTo(carol).filter((n) => n.gcm.zulip_message_id === id)).toHaveLength(1);
    expect(mailsTo(carol).filter((m) => m.includes('exactly once please'))).toHaveLength(1);
  });

  it('a message whose decision job failed for good is decided by the minutely sweep', async () => {
    const realm = await t.db.realm.findUniqueOrThrow({ where: { id: org.realm.id } });
    const prepared = await prepareMessage(t, {
      sender: alice.user,
      realm,
      type: 'private',
      to: [carol.user.id],
      content: 'decided after all',
      clientName: 'test',
    });
    // The job is gone with the message's commit (as after its last failed attempt).
    const { id } = await inTransaction(t, async (tx, events) => {
      const sent = await writeMessage(tx, events, prepared);
      await events.flush();
      await tx.jobOutbox.delete({ where: { jobId: notifyMessageJobId(sent.id) } });
      return sent;
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(pushesTo(carol).some((n) => n.gcm.zulip_message_id === id)).toBe(false);
    // A minute later the sweep finds the decision still owed.
    await t.db.notificationPending.update({
      where: { messageId: id },
      data: { createdAt: new Date(Date.now() - 120_000) },
    });
    await runSweep();
    await pushOf(carol, id);
    await waitFor(async () => mailsTo(carol).find((m) => m.includes('decided after all')), 15000);
    await waitFor(
      async () => (await t.db.notificationPending.count({ where: { messageId: id } })) === 0,
    );
  });

  it('an email whose job Redis lost is sent by the minutely sweep', async () => {
    const id = await dm(alice, [bob], 'lost job, kept row');
    await pushOf(bob, id);
    const row = await t.db.missedMessageEmail.findFirstOrThrow({
      where: { userId: bob.user.id, messageId: id },
    });
    // Redis loses the delayed job (a restart without persistence, a failover).
    const dueAt = Math.ceil(row.scheduledAt.getTime() / 1000) * 1000;
    expect(
      await removeJob(t, JobName.MISSED_MESSAGE_EMAILS, `missed-message-emails-${dueAt}`),
    ).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, BATCH_SECONDS * 1000 + 500));
    expect(mailsTo(bob).some((m) => m.includes('lost job, kept row'))).toBe(false);
    await runSweep();
    await waitFor(async () => mailsTo(bob).find((m) => m.includes('lost job, kept row')));
  });

  it('a bouncer that fails is retried with backoff until the push goes through', async () => {
    const failedBefore = bouncer.requests.filter((r) => !r.ok).length;
    bouncer.failNext = 2;
    const id = await dm(alice, [dave], 'through a flaky bouncer');
    // Attempts after 0, 2 and 4 more seconds (exponential backoff); the third goes through.
    const push = await pushOf(dave, id);
    expect(push.tokens).toEqual(['dave-phone']);
    expect(bouncer.requests.filter((r) => !r.ok).length - failedBefore).toBe(2);
    expect(pushesTo(dave).filter((n) => n.gcm.zulip_message_id === id)).toHaveLength(1);
  }, 30000);
});

describe('device tokens and the bouncer', () => {
  it('a token the bouncer refuses is removed; an unregistered one is removed there too', async () => {
    bouncer.rejectTokens.add('refused-token');
    await org.as(bob).post('/users/me/android_gcm_reg_id', { token: 'refused-token' }).expect(200);
    await waitFor(
      async () => (await t.db.pushDeviceToken.count({ where: { token: 'refused-token' } })) === 0,
    );
    await org.as(bob).post('/users/me/android_gcm_reg_id', { token: 'old-phone' }).expect(200);
    await waitFor(async () => bouncer.devices.some((d) => d.token === 'old-phone'));
    await org.as(bob).delete('/users/me/android_gcm_reg_id', { token: 'old-phone' }).expect(200);
    await waitFor(async () => !bouncer.devices.some((d) => d.token === 'old-phone'));
  });

  it('a token the push service rejected is dropped when the bouncer reports it deleted', async () => {
    await org.as(erin).post('/users/me/android_gcm_reg_id', { token: 'erin-tablet' }).expect(200);
    await waitFor(async () => bouncer.devices.some((d) => d.token === 'erin-tablet'));
    bouncer.deadTokens.add('erin-tablet');
    const id = await dm(alice, [erin], 'to a dead tablet');
    const push = await pushOf(erin, id);
    expect(push.tokens).toEqual(['erin-phone']);
    await waitFor(
      async () => (await t.db.pushDeviceToken.count({ where: { token: 'erin-tablet' } })) === 0,
    );
    expect(await t.db.pushDeviceToken.count({ where: { token: 'erin-phone' } })).toBe(1);
  });
});

describe('the server registration (CLI register-push-server)', () => {
  it('registers with the bouncer, then updates the registration', async () => {
    const first = await registerPushServerCommand(t, ['--contact-email', 'ops@acme.example']);
    expect(first).toEqual({
      bouncer: bouncer.url,
      zulip_org_id: bouncer.orgId,
      hostname: t.config.externalHost,
      created: true,
    });
    expect(bouncer.registeredHost).toBe(t.config.externalHost);
    const again = await registerPushServerCommand(t, [
      '--contact-email',
      'ops@acme.example',
      '--hostname',
      'chat.acme.example',
    ]);
    expect(again).toMatchObject({ created: false, hostname: 'chat.acme.example' });
    const wrongKey = {
      ...t,
      config: { ...t.config, pushBouncer: { ...t.config.pushBouncer!, orgKey: 'x' } },
    };
    await expect(
      registerPushServerCommand(wrongKey, ['--contact-email', 'ops@acme.example']),
    ).rejects.toThrow('key does not match');
  });
});

describe('POST /mobile_push/test_notification and what clients are told', () => {
  it('sends a test notification to the named device through the bouncer', async () => {
    const res = await org.as(bob).post('/mobile_push/test_notification', { token: 'bob-phone' });
    expect(res.body).toEqual({ result: 'success', msg: '' });
    expectOpenApiResponse('/mobile_push/test_notification', 'post', res.body, { status: 200 });
    expect(bouncer.tests.at(-1)).toMatchObject({
      token: 'bob-phone',
      kind: 2,
      basePayload: { user_id: bob.user.id, realm_name: 'Acme Chat', server: t.config.externalHost },
    });
  });

  it('refuses an unknown device, and one the bouncer does not know', async () => {
    const unknown = await org.as(bob).post('/mobile_push/test_notification', { token: 'nope' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({
      result: 'error',
      msg: 'Device not recognized',
      code: 'INVALID_PUSH_DEVICE_TOKEN',
    });
    await t.db.pushDeviceToken.create({
      data: { userId: bob.user.id, kind: 2, token: 'local-only' },
    });
    const remote = await org
      .as(bob)
      .post('/mobile_push/test_notification', { token: 'local-only' });
    expect(remote.status).toBe(400);
    expect(remote.body).toEqual({
      result: 'error',
      msg: 'Device not recognized by the push bouncer',
      code: 'INVALID_REMOTE_PUSH_DEVICE_TOKEN',
    });
    expect(bouncer.problems).toEqual([]);
    await t.db.pushDeviceToken.deleteMany({ where: { token: 'local-only' } });
  });

  it('push notifications are reported enabled in /register and /server_settings', async () => {
    const state = await org.register(bob, { fetch_event_types: JSON.stringify(['realm']) });
    expect(state.realm_push_notifications_enabled).toBe(true);
    const settings = await org.as(null).get('/server_settings').expect(200);
    expect(settings.body.push_notifications_enabled).toBe(true);
  });
});
