import { makeRealm, makeUser, type TestRealm, type TestUser } from '../../test/factories';
import {
  eventsUntil,
  register,
  startTestEvents,
  type TestEvents,
} from '../../test/events-factories';
import { deleteKeys, startTestContext, type TestContext } from '../../test/harness';
import { postDirect } from '../../test/message-factories';

let t: TestContext;
let ev: TestEvents;
let org: TestRealm;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  t = await startTestContext();
  ev = await startTestEvents(t);
  org = await makeRealm(t);
  alice = await makeUser(t, org.realm);
  bob = await makeUser(t, org.realm);
});
afterAll(async () => {
  await ev.stop();
  await t.close();
});

describe('Dispatcher', () => {
  it('delivers again after Redis lost its data, consumer groups included', async () => {
    const before = await register(t, org.host, bob.auth);
    await postDirect(t, org.realm, alice.user, [bob.user], 'before');
    await eventsUntil(ev, org.host, bob.auth, before.queue_id, (e) => e.length > 0);

    // What a Redis restarted without persistence holds of ours: nothing.
    await deleteKeys(t.redis, `${t.config.redisPrefix}*`);
    const after = await register(t, org.host, bob.auth);
    const id = await postDirect(t, org.realm, alice.user, [bob.user], 'after');
    const events = await eventsUntil(
      ev,
      org.host,
      bob.auth,
      after.queue_id,
      (e) => e.some((event) => event.type === 'message'),
      10_000,
    );
    expect(events.map((e) => (e.message as { id: number } | undefined)?.id)).toContain(id);
  });
});
