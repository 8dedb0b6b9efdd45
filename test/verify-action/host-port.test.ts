import { guestAccessOrganization } from '../guest-access-organization';
import type { Organization } from '../organization';
import { ActionVerifier, expectCovered, ok } from '../verify-action';

/**
 * A server reached at a host with a port (EXTERNAL_HOST `chat.test:9991`, as in development).
 * Zulip's `realm_bot_domain` is get_bot_domain: the made-up domain of bots' and placeholders'
 * addresses, which never carries a port. A client makes a placeholder ("Unknown user") from it
 * when a user leaves its sight, so it must be the domain register's placeholders have.
 */
let org: Organization<'alice' | 'bob' | 'guest' | 'bot', 'shared'>;

beforeAll(async () => {
  org = await guestAccessOrganization({ EXTERNAL_HOST: 'chat.test:9991' });
  await ok(
    org.as(org.owner).patch('/realm', {
      can_access_all_users_group: JSON.stringify({ new: org.systemGroups['role:members'] }),
    }),
  );
});
afterAll(() => org.close());

jest.setTimeout(300_000);

describe('realm_bot_domain on a host with a port', () => {
  it('is the domain of new bots, without the port', async () => {
    const { alice } = org.users;
    const state = await org.register(alice, { fetch_event_types: JSON.stringify(['realm']) });
    expect(state.realm_bot_domain).toBe('chat.test');
    const bot = await ok(org.as(alice).post('/bots', { full_name: 'Osric', short_name: 'osric' }));
    const created = await org.t.db.user.findUniqueOrThrow({
      where: { id: bot.user_id as number },
    });
    expect(created.email).toBe('osric-bot@chat.test');
  });

  it("makes the placeholder a guest's legacy client keeps of a user it loses sight of", async () => {
    const { alice, guest } = org.users;
    const v = new ActionVerifier(org, [guest]);
    await v.step(() =>
      ok(org.as(alice).delete('/users/me/subscriptions', { subscriptions: '["shared"]' })),
    );
    expectCovered(v, ['realm_user:remove']);
  });
});
