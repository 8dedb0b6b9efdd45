import { postToChannel } from '../message-factories';
import { organization, type Organization } from '../organization';
import { RACE_ENV, RACE_SIZE, raceServer, serverErrors, type RaceServer } from './race';

/**
 * Issue 42: requests that read a message's row and write it back, sent at once over HTTP
 * against the real database. Each race checks the final state and that no answer is a 5xx.
 */
let org: Organization<'alice' | 'bob', 'design' | 'lobby'>;
let server: RaceServer;

// Races and their organization on a busy machine take longer than one request.
jest.setTimeout(120_000);

beforeAll(async () => {
  org = await organization({
    env: RACE_ENV,
    members: { alice: 'member', bob: 'member' },
    channels: { design: ['alice', 'bob', 'owner'], lobby: ['alice', 'owner'] },
  });
  server = await raceServer(org);
});
afterAll(async () => {
  await server.close();
  await org.close();
});

const post = (topic: string, content: string) =>
  postToChannel(org.t, org.realm, org.users.alice.user, org.channels.design, topic, content);

const history = async (id: number) => {
  const res = await org.as(org.users.alice).get(`/messages/${id}/history`);
  expect(res.status).toBe(200);
  return res.body.message_history as { content: string; topic: string }[];
};

const outboxEvents = async (type: string) => {
  const rows = await org.t.db.outboxEvent.findMany({ orderBy: { id: 'asc' } });
  return rows.map((r) => r.eventJson as Record<string, unknown>).filter((e) => e.type === type);
};

describe('concurrent edits of one message', () => {
  it('keeps every edit in the history and ends with the last one', async () => {
    const id = await post('edits', 'original');
    const contents = Array.from({ length: RACE_SIZE }, (_, i) => `edit number ${i}`);
    const answers = await server.race(
      contents.map((content) => ({
        who: org.users.alice,
        method: 'patch' as const,
        path: `/messages/${id}`,
        form: { content },
      })),
    );
    expect(serverErrors(answers)).toEqual([]);
    expect(answers.map((a) => a.status)).toEqual(contents.map(() => 200));

    const snapshots = await history(id);
    // The original plus one snapshot per edit, each edit's content seen exactly once.
    expect(snapshots).toHaveLength(RACE_SIZE + 1);
    expect(snapshots[0].content).toBe('original');
    expect(snapshots.map((s) => s.content).sort()).toEqual(['original', ...contents].sort());
    const message = await org.t.db.message.findUniqueOrThrow({ where: { id } });
    expect(message.content).toBe(snapshots[RACE_SIZE].content);
    expect(message.editHistory as unknown[]).toHaveLength(RACE_SIZE);
  });
});

describe('a topic moved while its messages are edited', () => {
  it('moves every message and loses neither the move nor any edit', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) ids.push(await post('before move', `message ${i}`));
    const perMessage = RACE_SIZE / ids.length;
    const edits = ids.flatMap((id) =>
      Array.from({ length: perMessage }, (_, k) => ({
        who: org.users.alice,
        method: 'patch' as const,
        path: `/messages/${id}`,
        form: { content: `message ${id} edit ${k}` },
      })),
    );
    const move = {
      who: org.owner,
      method: 'patch' as const,
      path: `/messages/${ids[0]}`,
      form: {
        topic: 'after move',
        propagate_mode: 'change_all',
        send_notification_to_new_thread: false,
        send_notification_to_old_thread: false,
      },
    };
    // The move in the middle of the edits, so it overlaps them.
    const calls = [...edits.slice(0, RACE_SIZE / 2), move, ...edits.slice(RACE_SIZE / 2)];
    const answers = await server.race(calls);
    expect(serverErrors(answers)).toEqual([]);
    expect(answers.map((a) => a.status)).toEqual(calls.map(() => 200));

    for (const id of ids) {
      const message = await org.t.db.message.findUniqueOrThrow({ where: { id } });
      expect(message.subject).toBe('after move');
      const entries = message.editHistory as { prev_content?: string; prev_topic?: string }[];
      // Every edit and the move, each as its own entry.
      expect(entries.filter((e) => e.prev_content !== undefined)).toHaveLength(perMessage);
      expect(entries.filter((e) => e.prev_topic !== undefined)).toHaveLength(1);
      expect(entries).toHaveLength(perMessage + 1);
      // The contents replaced, and the one kept, are the original and each edit once.
      const replaced = entries.flatMap((e) =>
        e.prev_content === undefined ? [] : [e.prev_content],
      );
      expect([...replaced, message.content].sort()).toEqual(
        [
          `message ${ids.indexOf(id)}`,
          ...Array.from({ length: perMessage }, (_, k) => `message ${id} edit ${k}`),
        ].sort(),
      );
      const snapshots = await history(id);
      expect(snapshots[snapshots.length - 1].topic).toBe('after move');
    }
  });
});

describe('one reaction added and removed at once', () => {
  const form = { emoji_name: 'octopus' };

  it('by one user: answers that match the final state, one event per success', async () => {
    const id = await post('reactions', 'react to me');
    const before = (await outboxEvents('reaction')).length;
    const calls = Array.from({ length: RACE_SIZE }, (_, i) => ({
      who: org.users.bob,
      method: i % 2 === 0 ? ('post' as const) : ('delete' as const),
      path: `/messages/${id}/reactions`,
      form,
    }));
    const answers = await server.race(calls);
    expect(serverErrors(answers)).toEqual([]);
    for (const [i, a] of answers.entries()) {
      if (a.status === 200) continue;
      expect(a.status).toBe(400);
      expect(a.body.code).toBe(
        calls[i].method === 'post' ? 'REACTION_ALREADY_EXISTS' : 'REACTION_DOES_NOT_EXIST',
      );
    }
    const added = answers.filter((a, i) => a.status === 200 && calls[i].method === 'post').length;
    const removed = answers.filter(
      (a, i) => a.status === 200 && calls[i].method === 'delete',
    ).length;
    const rows = await org.t.db.reaction.count({ where: { messageId: id } });
    // Adds and removes that succeeded alternate, starting from no reaction.
    expect(added - removed).toBe(rows);
    expect(rows === 0 || rows === 1).toBe(true);
    const events = (await outboxEvents('reaction')).slice(before);
    expect(events.filter((e) => e.op === 'add')).toHaveLength(added);
    expect(events.filter((e) => e.op === 'remove')).toHaveLength(removed);
  });

  it('by many users: each user ends with what their answers say', async () => {
    const id = await post('reactions', 'react to me too');
    const people = [org.users.alice, org.users.bob, org.owner];
    const calls = Array.from({ length: RACE_SIZE * 2 }, (_, i) => ({
      who: people[i % people.length],
      method: i % 2 === 0 ? ('post' as const) : ('delete' as const),
      path: `/messages/${id}/reactions`,
      form,
    }));
    const answers = await server.race(calls);
    expect(serverErrors(answers)).toEqual([]);
    for (const person of people) {
      const mine = answers.filter((_, i) => calls[i].who === person);
      const myCalls = calls.filter((c) => c.who === person);
      const added = mine.filter((a, i) => a.status === 200 && myCalls[i].method === 'post').length;
      const removed = mine.filter(
        (a, i) => a.status === 200 && myCalls[i].method === 'delete',
      ).length;
      const rows = await org.t.db.reaction.count({
        where: { messageId: id, userId: person.user.id },
      });
      expect(added - removed).toBe(rows);
    }
    // Everyone who reacts with the same emoji shares one name.
    const names = await org.t.db.reaction.findMany({ where: { messageId: id } });
    expect(new Set(names.map((r) => r.emojiName)).size).toBeLessThanOrEqual(1);
  });
});

describe('update_message_flags from two clients', () => {
  it('changes each message once, reports it once, and ends starred', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 30; i++) ids.push(await post('flags', `flag me ${i}`));
    // Messages bob never received (a public channel's history): historical rows are made.
    const lobby: number[] = [];
    for (let i = 0; i < 5; i++) {
      lobby.push(
        await postToChannel(
          org.t,
          org.realm,
          org.users.alice.user,
          org.channels.lobby,
          'h',
          `${i}`,
        ),
      );
    }
    const all = [...ids, ...lobby];
    const calls = Array.from({ length: RACE_SIZE }, (_, i) => ({
      who: org.users.bob,
      method: 'post' as const,
      path: '/messages/flags',
      // The two clients name the messages in opposite orders.
      form: {
        messages: JSON.stringify(i % 2 === 0 ? all : [...all].reverse()),
        op: 'add',
        flag: 'starred',
      },
    }));
    const answers = await server.race(calls);
    expect(serverErrors(answers)).toEqual([]);
    expect(answers.map((a) => a.status)).toEqual(calls.map(() => 200));
    const reported = answers.flatMap((a) => a.body.messages as number[]);
    expect(reported.sort((a, b) => a - b)).toEqual([...all].sort((a, b) => a - b));
    const rows = await org.t.db.userMessage.findMany({
      where: { userId: org.users.bob.user.id, messageId: { in: all } },
    });
    expect(rows).toHaveLength(all.length);
    expect(rows.every((r) => (Number(r.flags) & 2) !== 0)).toBe(true);
  });
});

describe('concurrent deletes of one message', () => {
  it('deletes it once; the others answer as for a missing message', async () => {
    const id = await post('deletes', 'delete me');
    const answers = await server.race(
      Array.from({ length: RACE_SIZE }, () => ({
        who: org.owner,
        method: 'delete' as const,
        path: `/messages/${id}`,
      })),
    );
    expect(serverErrors(answers)).toEqual([]);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect(a.status).toBe(400);
      expect(a.body.msg).toBe('Invalid message(s)');
    }
    expect(await org.t.db.message.count({ where: { id } })).toBe(0);
  });
});
