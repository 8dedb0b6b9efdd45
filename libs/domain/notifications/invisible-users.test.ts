import type { TestUser } from '../../../test/factories';
import { type Organization, organization } from '../../../test/organization';
import { decideMessageNotifications } from './decide-notifications';

/**
 * Issue 46: invisible users (presence_enabled false) used to count as away whatever they did, so
 * one reading along got an email for every direct message. Their activity is now recorded apart
 * from the presence others see: while they use the app they are not away, and others still see
 * them offline.
 */
let org: Organization<'alice' | 'bob' | 'carol'>;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;

beforeAll(async () => {
  org = await organization({
    events: true,
    members: { alice: 'member', bob: 'member', carol: 'member' },
  });
  ({ alice, bob, carol } = org.users);
  for (const who of [bob, carol]) {
    await org.as(who).patch('/settings', { presence_enabled: false }).expect(200);
    await org.register(who);
  }
});
afterAll(async () => {
  await org.close();
});

async function dmTo(to: TestUser, content: string): Promise<number> {
  const res = await org
    .as(alice)
    .post('/messages', { type: 'direct', to: JSON.stringify([to.user.id]), content })
    .expect(200);
  return res.body.id as number;
}

const emailsOwed = (user: TestUser, messageId: number) =>
  org.t.db.missedMessageEmail.count({ where: { userId: user.user.id, messageId } });

describe('an invisible user', () => {
  it('at the screen is not away: no email for a direct message', async () => {
    await org.as(bob).post('/users/me/presence', { status: 'active' }).expect(200);
    const id = await dmTo(bob, 'are you there?');
    await decideMessageNotifications(org.t, { messageId: id });
    expect(await emailsOwed(bob, id)).toBe(0);
  });

  it('who reported no activity is away, as anyone would be', async () => {
    const id = await dmTo(carol, 'are you there?');
    await decideMessageNotifications(org.t, { messageId: id });
    expect(await emailsOwed(carol, id)).toBe(1);
  });

  it('still looks offline to everyone else, whatever the client reports', async () => {
    const seen = async () => {
      const res = await org
        .as(alice)
        .post('/users/me/presence', { status: 'active', slim_presence: true })
        .expect(200);
      return (res.body.presences as Record<string, { idle_timestamp: number }>)[
        String(bob.user.id)
      ];
    };
    const before = await seen();
    await org.as(bob).post('/users/me/presence', { status: 'active' }).expect(200);
    const after = await seen();
    expect(after).toEqual(before);
    expect(Date.now() / 1000 - after.idle_timestamp).toBeGreaterThan(140);
    const single = await org.as(alice).get(`/users/${bob.user.id}/presence`);
    expect(single.body.presence?.aggregated?.status ?? 'offline').toBe('offline');
  });
});
