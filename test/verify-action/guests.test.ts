import { guestAccessOrganization } from '../guest-access-organization';
import type { Organization } from '../organization';
import { ActionVerifier, expectCovered, ok } from '../verify-action';

/**
 * A guest restricted to the users they share a conversation with (`can_access_all_users_group`
 * = role:members): Gus shares #shared with Alice only.
 */
let org: Organization<'alice' | 'bob' | 'guest' | 'bot', 'shared'>;

beforeAll(async () => {
  org = await guestAccessOrganization();
  await ok(
    org.as(org.owner).patch('/realm', {
      can_access_all_users_group: JSON.stringify({ new: org.systemGroups['role:members'] }),
    }),
  );
});
afterAll(() => org.close());

jest.setTimeout(300_000);

describe('verify_action: a guest who sees only some users', () => {
  it('loses sight of a user who leaves their only shared channel, and regains it', async () => {
    const { alice, guest } = org.users;
    const v = new ActionVerifier(org, [guest, alice]);
    await v.step(() =>
      ok(org.as(alice).delete('/users/me/subscriptions', { subscriptions: '["shared"]' })),
    );
    await v.step(() =>
      ok(
        org
          .as(alice)
          .post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'shared' }]) }),
      ),
    );
    expectCovered(v, ['realm_user:remove', 'realm_user:add']);
  });
});
