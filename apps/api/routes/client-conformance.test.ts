import { makeUser, type TestUser } from '../../../test/factories';
import { type Organization, organization } from '../../../test/organization';

/**
 * Issue 28: details Zulip's clients read strictly. Retention "forever" is -1, the password
 * rules are the operator's settings (zxcvbn's guess estimate included), and linkifiers reach
 * only clients that read RFC 6570 templates.
 */
let org: Organization;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  org = await organization({
    events: true,
    env: { PASSWORD_MIN_LENGTH: '8', PASSWORD_MIN_GUESSES: '100000' },
    members: { alice: 'member', bob: 'member' },
  });
  ({ alice, bob } = org.users);
  await org.t.db.user.update({ where: { id: org.owner.user.id }, data: { canCreateUsers: true } });
});
afterAll(() => org.close());

const LINKIFIER = { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example/{id}' };

describe('POST /register', () => {
  it('sends realm_message_retention_days -1 for "keep forever", and the days when set', async () => {
    const forever = await org.register(alice, { fetch_event_types: '["realm"]' });
    expect(forever.realm_message_retention_days).toBe(-1);
    await org.t.db.realm.update({
      where: { id: org.realm.id },
      data: { messageRetentionDays: 30 },
    });
    const limited = await org.register(alice, { fetch_event_types: '["realm"]' });
    expect(limited.realm_message_retention_days).toBe(30);
    await org.t.db.realm.update({
      where: { id: org.realm.id },
      data: { messageRetentionDays: null },
    });
  });

  it('reports the configured password rules', async () => {
    const state = await org.register(alice, { fetch_event_types: '["realm"]' });
    expect(state.password_min_length).toBe(8);
    expect(state.password_min_guesses).toBe(100000);
  });
});

describe('password rules (PASSWORD_MIN_LENGTH, PASSWORD_MIN_GUESSES)', () => {
  it('refuses short and guessable passwords everywhere a password is chosen', async () => {
    const user = await makeUser(org.t, org.realm, { password: 'old-secret-1' });
    // Long enough, but a dictionary word with a common suffix: few zxcvbn guesses.
    for (const weak of ['short1', 'password123', 'qwertyuiop']) {
      const patched = await org.as(user).patch('/settings', {
        old_password: 'old-secret-1',
        new_password: weak,
      });
      expect({ weak, body: patched.body }).toMatchObject({
        weak,
        body: { result: 'error', msg: 'New password is too weak!' },
      });
      const created = await org.as(org.owner).post('/users', {
        email: `weak-${weak}@example.com`,
        password: weak,
        full_name: 'Weak One',
      });
      expect(created.body).toMatchObject({ result: 'error', msg: 'The password is too weak.' });
    }
    expect(await org.t.db.user.count({ where: { deliveryEmail: { startsWith: 'weak-' } } })).toBe(
      0,
    );
    const strong = await org.as(user).patch('/settings', {
      old_password: 'old-secret-1',
      new_password: 'violet kettle orbit',
    });
    expect(strong.body).toMatchObject({ result: 'success' });
  });

  it('accepts any non-empty password when an operator sets both rules to 0', async () => {
    const lax = await organization({
      env: { PASSWORD_MIN_LENGTH: '0', PASSWORD_MIN_GUESSES: '0' },
    });
    try {
      await lax.t.db.user.update({
        where: { id: lax.owner.user.id },
        data: { canCreateUsers: true },
      });
      const state = await lax.register(lax.owner, { fetch_event_types: '["realm"]' });
      expect(state).toMatchObject({ password_min_length: 0, password_min_guesses: 0 });
      const one = await lax.as(lax.owner).post('/users', {
        email: 'one@example.com',
        password: 'x',
        full_name: 'One Letter',
      });
      expect(one.body).toMatchObject({ result: 'success' });
      const empty = await lax.as(lax.owner).post('/users', {
        email: 'none@example.com',
        password: '',
        full_name: 'No Password',
      });
      expect(empty.body).toMatchObject({ result: 'error' });
    } finally {
      await lax.close();
    }
  });
});

describe('linkifiers and the linkifier_url_template capability', () => {
  it('gives clients without it no linkifiers and no realm_linkifiers events', async () => {
    const modern = await org.register(alice, {
      event_types: '["realm_linkifiers"]',
      client_capabilities: JSON.stringify({ linkifier_url_template: true }),
    });
    const legacy = await org.register(bob, { event_types: '["realm_linkifiers"]' });
    // Bob's modern queue tells when the change has been dispatched to bob's queues.
    const bobModern = await org.register(bob, {
      event_types: '["realm_linkifiers"]',
      client_capabilities: JSON.stringify({ linkifier_url_template: true }),
    });
    expect(modern.realm_linkifiers).toEqual([]);
    expect(legacy.realm_linkifiers).toEqual([]);

    const added = await org.as(org.owner).post('/realm/filters', LINKIFIER);
    expect(added.status).toBe(200);
    const id = added.body.id as number;

    const events = await org.eventsUntil(alice, modern.queue_id, (got) =>
      got.some((e) => e.type === 'realm_linkifiers'),
    );
    expect(events.find((e) => e.type === 'realm_linkifiers')).toMatchObject({
      realm_linkifiers: [{ id, ...LINKIFIER }],
    });
    await org.eventsUntil(bob, bobModern.queue_id, (got) =>
      got.some((e) => e.type === 'realm_linkifiers'),
    );
    // The older client's queue was dispatched the same change and got nothing.
    const legacyPoll = await org.poll(bob, {
      queue_id: legacy.queue_id,
      last_event_id: -1,
      dont_block: true,
    });
    expect(legacyPoll.body.events).toEqual([]);

    const modernState = await org.register(alice, {
      fetch_event_types: '["realm_linkifiers","realm_filters"]',
      client_capabilities: JSON.stringify({ linkifier_url_template: true }),
    });
    expect(modernState.realm_linkifiers).toEqual([{ id, ...LINKIFIER }]);
    expect(modernState.realm_filters).toEqual([]);
    const legacyState = await org.register(bob, {
      fetch_event_types: '["realm_linkifiers","realm_filters"]',
    });
    expect(legacyState.realm_linkifiers).toEqual([]);
    expect(legacyState.realm_filters).toEqual([]);
  });
});
