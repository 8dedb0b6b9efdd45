import fc from 'fast-check';
import type { TestUser } from '../factories';
import { organization, type Organization } from '../organization';
import { ActionVerifier, CURRENT, LEGACY } from '../verify-action';

/**
 * Random sequences of actions by three users, each checked like verify_action: after every
 * action, every watcher's register state plus the events it received must equal a fresh
 * register. CI runs a fixed seed; a longer run:
 *
 *   VERIFY_ACTION_SEED=$RANDOM VERIFY_ACTION_RUNS=40 npx jest test/verify-action/property.test.ts
 *
 * (fast-check prints the seed and the shrunk sequence of a failure, to replay it.)
 */

type Member = 'hamlet' | 'iago' | 'cordelia';
type Org = Organization<Member, 'Denmark' | 'Verona'>;
let org: Org;

const SEED = Number(process.env.VERIFY_ACTION_SEED ?? 42);
/**
 * CI: six sequences, 300 checked actions. A step costs about one registration, its four
 * watchers being checked at once (test/verify-action.ts): one sequence of 50 took 159 s on a
 * 2-core box at load 24 (3.2 s a step), against 436 s at load 34 when they registered one after
 * another; most of a step is the four fresh registrations, which a quiet box serves in a fraction.
 */
const RUNS = Number(process.env.VERIFY_ACTION_RUNS ?? 6);
/**
 * The parts of the state these actions change (Zulip's verify_action also narrows
 * fetch_event_types): each step registers four times, and the realm's settings, groups and
 * server constants, which no action here touches, are most of a full registration's cost.
 */
const FETCH = [
  'message',
  'update_message_flags',
  'recent_private_conversations',
  'starred_messages',
  'subscription',
  'stream',
  'realm_user',
  'user_status',
  'user_topic',
  'muted_topics',
  'muted_users',
  'user_settings',
  'update_display_settings',
];
const STEPS = 50;
const TOPICS = ['plans', 'Plans', 'ghost', 'castle'];

beforeAll(async () => {
  org = await organization({
    events: true,
    members: { hamlet: 'member', iago: 'administrator', cordelia: 'member' },
    channels: { Denmark: ['hamlet', 'iago', 'cordelia'], Verona: ['hamlet', 'cordelia'] },
  });
});
afterAll(() => org.close());

jest.setTimeout(Math.max(900_000, RUNS * STEPS * 15_000));

const who = fc.constantFrom<Member>('hamlet', 'iago', 'cordelia');
const channel = fc.constantFrom<'Denmark' | 'Verona'>('Denmark', 'Verona');
const topic = fc.constantFrom(...TOPICS);
/** Which of the user's recent messages an action picks, counted from the newest. */
const recent = fc.nat({ max: 4 });

const action = fc.oneof(
  fc.record({ kind: fc.constant('send' as const), by: who, channel, topic }),
  fc.record({
    kind: fc.constant('dm' as const),
    by: who,
    to: fc.subarray(['hamlet', 'iago', 'cordelia'] as Member[], { minLength: 1 }),
  }),
  fc.record({ kind: fc.constant('edit' as const), by: who, pick: recent, mention: fc.boolean() }),
  fc.record({ kind: fc.constant('move' as const), by: who, pick: recent, topic, channel }),
  fc.record({ kind: fc.constant('delete' as const), by: who, pick: recent }),
  fc.record({ kind: fc.constant('react' as const), by: who, pick: recent, add: fc.boolean() }),
  fc.record({
    kind: fc.constant('flag' as const),
    by: who,
    pick: recent,
    flag: fc.constantFrom('read', 'starred'),
    add: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('readAll' as const), by: who }),
  fc.record({ kind: fc.constant('subscribe' as const), by: who, channel, join: fc.boolean() }),
  fc.record({ kind: fc.constant('color' as const), by: who, channel, muted: fc.boolean() }),
  fc.record({
    kind: fc.constant('status' as const),
    by: who,
    text: fc.constantFrom('', 'busy', 'away'),
  }),
  fc.record({
    kind: fc.constant('userTopic' as const),
    by: who,
    channel,
    topic,
    policy: fc.constantFrom(0, 1, 2, 3),
  }),
  fc.record({ kind: fc.constant('setting' as const), by: who, on: fc.boolean() }),
  fc.record({ kind: fc.constant('mute' as const), by: who, other: who, add: fc.boolean() }),
);
type Action = typeof action extends fc.Arbitrary<infer A> ? A : never;

/** Messages each user can act on, newest first, as the sequence goes. */
const messagesOf = new Map<Member, number[]>();

const user = (m: Member): TestUser => org.users[m];
const remember = (by: Member, sent: { id: number }) =>
  messagesOf.set(by, [sent.id, ...(messagesOf.get(by) ?? [])]);
const pickMessage = (by: Member, pick: number) => {
  const ids = messagesOf.get(by) ?? [];
  return ids.length ? ids[pick % ids.length] : undefined;
};

/**
 * Performs one action. A refusal (400: e.g. editing a deleted message, reacting twice) is a
 * valid outcome: the check then requires that nothing changed.
 */
async function perform(a: Action): Promise<void> {
  const as = org.as(user(a.by));
  switch (a.kind) {
    case 'send': {
      const res = await as.post('/messages', {
        type: 'stream',
        to: org.channels[a.channel].id,
        topic: a.topic,
        content: `hello from ${a.by}`,
      });
      if (res.status === 200) remember(a.by, res.body as { id: number });
      return;
    }
    case 'dm': {
      const res = await as.post('/messages', {
        type: 'direct',
        to: JSON.stringify(a.to.map((m) => user(m).user.id)),
        content: 'psst',
      });
      if (res.status === 200) remember(a.by, res.body as { id: number });
      return;
    }
    case 'edit': {
      const id = pickMessage(a.by, a.pick);
      if (id === undefined) return;
      await as.patch(`/messages/${id}`, { content: a.mention ? 'edited @**Cordelia**' : 'edited' });
      return;
    }
    case 'move': {
      const id = pickMessage(a.by, a.pick);
      if (id === undefined) return;
      await as.patch(`/messages/${id}`, {
        topic: a.topic,
        stream_id: org.channels[a.channel].id,
        propagate_mode: 'change_one',
      });
      return;
    }
    case 'delete': {
      const id = pickMessage(a.by, a.pick);
      if (id === undefined) return;
      const res = await org.as(org.users.iago).delete(`/messages/${id}`);
      if (res.status === 200) {
        messagesOf.set(
          a.by,
          (messagesOf.get(a.by) ?? []).filter((m) => m !== id),
        );
      }
      return;
    }
    case 'react': {
      const id = pickMessage(a.by, a.pick);
      if (id === undefined) return;
      if (a.add) await as.post(`/messages/${id}/reactions`, { emoji_name: 'octopus' });
      else await as.delete(`/messages/${id}/reactions`, { emoji_name: 'octopus' });
      return;
    }
    case 'flag': {
      const id = pickMessage(a.by, a.pick);
      if (id === undefined) return;
      // Flags of someone else's copy: the pick is among the user's own sent messages, so each
      // user flags messages the others may also hold.
      await org.as(user(a.by === 'hamlet' ? 'cordelia' : 'hamlet')).post('/messages/flags', {
        messages: JSON.stringify([id]),
        op: a.add ? 'add' : 'remove',
        flag: a.flag,
      });
      return;
    }
    case 'readAll':
      await as.post('/mark_all_as_read');
      return;
    case 'subscribe':
      if (a.join) {
        await as.post('/users/me/subscriptions', {
          subscriptions: JSON.stringify([{ name: a.channel }]),
        });
      } else {
        await as.delete('/users/me/subscriptions', { subscriptions: JSON.stringify([a.channel]) });
      }
      return;
    case 'color':
      await as.post('/users/me/subscriptions/properties', {
        subscription_data: JSON.stringify([
          { stream_id: org.channels[a.channel].id, property: 'is_muted', value: a.muted },
        ]),
      });
      return;
    case 'status':
      await as.post('/users/me/status', { status_text: a.text });
      return;
    case 'userTopic':
      await as.post('/user_topics', {
        stream_id: org.channels[a.channel].id,
        topic: a.topic,
        visibility_policy: a.policy,
      });
      return;
    case 'setting':
      await as.patch('/settings', { enter_sends: a.on });
      return;
    case 'mute':
      if (a.other === a.by) return;
      if (a.add) await as.post(`/users/me/muted_users/${user(a.other).user.id}`);
      else await as.delete(`/users/me/muted_users/${user(a.other).user.id}`);
      return;
  }
}

describe('verify_action: random sequences of actions by three users', () => {
  it(`${RUNS} sequences of ${STEPS} actions, seed ${SEED}`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(action, { minLength: STEPS, maxLength: STEPS }),
        async (actions) => {
          const { hamlet, iago, cordelia } = org.users;
          // Three current clients, and one legacy client for one of them.
          const verifier = new ActionVerifier(
            org,
            [hamlet, iago, cordelia],
            { extra: [[cordelia, LEGACY]], form: { fetch_event_types: JSON.stringify(FETCH) } },
            [CURRENT],
          );
          await verifier.start();
          for (const a of actions) await verifier.step(() => perform(a));
        },
      ),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  });
});
