import type { TestUser } from '../../test/factories';
import { deleteKeys, type TestContext } from '../../test/harness';
import { postDirect } from '../../test/message-factories';
import { type Organization, organization } from '../../test/organization';

let t: TestContext;
let org: Organization;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  org = await organization({ events: true, members: { alice: 'member', bob: 'member' } });
  ({ t } = org);
  ({ alice, bob } = org.users);
});
afterAll(() => org.close());

describe('Dispatcher', () => {
  it('delivers again after Redis lost its data, consumer groups included', async () => {
    const before = await org.register(bob);
    await postDirect(t, org.realm, alice.user, [bob.user], 'before');
    await org.eventsUntil(bob, before.queue_id);

    // What a Redis restarted without persistence holds of ours: nothing.
    await deleteKeys(t.redis, `${t.config.redisPrefix}*`);
    const after = await org.register(bob);
    const id = await postDirect(t, org.realm, alice.user, [bob.user], 'after');
    const events = await org.eventsUntil(
      bob,
      after.queue_id,
      (e) => e.some((event) => event.type === 'message'),
      10_000,
    );
    expect(events.map((e) => (e.message as { id: number } | undefined)?.id)).toContain(id);
  });
});
