import { Prisma, type User } from '../../../generated/prisma/client';
import { postDirect, postToChannel } from '../../../test/message-factories';
import { organization, type Organization } from '../../../test/organization';
import type { TestUser } from '../../../test/factories';
import { Flag } from './flags';
import { narrowSource } from './get-messages';
import {
  compileNarrow,
  MAX_NARROW_OPERAND_IDS,
  MAX_NARROW_OPERAND_LENGTH,
  MAX_NARROW_TERMS,
  narrowParam,
  parseNarrow,
  resolveWithOperator,
  type NarrowTerm,
} from './narrow';
import { RESOLVED_TOPIC_PREFIX } from './topic-name';

let org: Organization<'alice' | 'bob' | 'carol' | 'guest', 'design' | 'secret'>;
/** Message IDs by what they are. */
const ids: Record<string, number> = {};

beforeAll(async () => {
  org = await organization({
    members: { alice: 'member', bob: 'member', carol: 'member', guest: 'guest' },
    channels: {
      design: ['alice', 'bob'],
      secret: { subscribers: ['alice'], inviteOnly: true, historyPublicToSubscribers: false },
    },
  });
  const { t, realm } = org;
  const { alice, bob, carol } = org.users;
  const { design, secret } = org.channels;
  ids.plans = await postToChannel(t, realm, alice.user, design, 'Plans', 'the ZEBRA plan');
  ids.link = await postToChannel(t, realm, bob.user, design, 'plans', 'see https://example.com');
  ids.resolved = await postToChannel(
    t,
    realm,
    bob.user,
    design,
    `${RESOLVED_TOPIC_PREFIX}done`,
    'ok',
  );
  ids.secret = await postToChannel(t, realm, alice.user, secret, 'hush', 'quiet');
  ids.toBob = await postDirect(t, realm, alice.user, [bob.user], 'hi Bob');
  ids.group = await postDirect(t, realm, alice.user, [bob.user, carol.user], 'hi both');
  ids.self = await postDirect(t, realm, alice.user, [alice.user], 'note to self');
  // Bob stars the link and has read the first message.
  await t.db.userMessage.update({
    where: { userId_messageId: { userId: bob.user.id, messageId: ids.link } },
    data: { flags: BigInt(Flag.starred) },
  });
  await t.db.userMessage.update({
    where: { userId_messageId: { userId: bob.user.id, messageId: ids.plans } },
    data: { flags: BigInt(Flag.read) },
  });
});
afterAll(() => org.close());

const term = (operator: string, operand: NarrowTerm['operand'], negated = false): NarrowTerm => ({
  operator,
  operand,
  negated,
});

const fullUser = (who: TestUser): Promise<User> =>
  org.t.db.user.findUniqueOrThrow({ where: { id: who.user.id } });

/** The IDs of the messages the narrow selects for `who`, as GET /messages reads them. */
async function selected(who: TestUser, terms: NarrowTerm[]): Promise<number[]> {
  const user = await fullUser(who);
  const narrow = await compileNarrow(org.t.db, user, org.realm, terms);
  const rows = await org.t.db.$queryRaw<{ id: number }[]>(
    Prisma.sql`SELECT m.id ${narrowSource(user, narrow)} ORDER BY m.id`,
  );
  return rows.map((r) => r.id);
}

const refusal = async (who: TestUser, terms: NarrowTerm[]) =>
  compileNarrow(org.t.db, await fullUser(who), org.realm, terms).then(
    () => null,
    (err: Error & { code?: string }) => ({ code: err.code, msg: err.message }),
  );

describe('the narrow parameter', () => {
  it('takes objects and legacy [operator, operand] pairs', () => {
    expect(
      parseNarrow([
        ['channel', 'design'],
        { operator: 'topic', operand: 'plans' },
        { operator: 'sender', operand: 7, negated: true },
      ]),
    ).toEqual([term('channel', 'design'), term('topic', 'plans'), term('sender', 7, true)]);
    expect(parseNarrow(undefined)).toEqual([]);
  });

  it('bounds the terms, the operand length and the IDs of an operand', () => {
    const valid = (value: unknown) => narrowParam.schema.validate(value).error === undefined;
    const terms = (n: number) => Array.from({ length: n }, () => ['is', 'starred']);
    expect(valid(terms(MAX_NARROW_TERMS))).toBe(true);
    expect(valid(terms(MAX_NARROW_TERMS + 1))).toBe(false);
    const search = (length: number) => [{ operator: 'search', operand: 'a'.repeat(length) }];
    expect(valid(search(MAX_NARROW_OPERAND_LENGTH))).toBe(true);
    expect(valid(search(MAX_NARROW_OPERAND_LENGTH + 1))).toBe(false);
    const dm = (n: number) => [{ operator: 'dm', operand: Array.from({ length: n }, (_, i) => i) }];
    expect(valid(dm(MAX_NARROW_OPERAND_IDS))).toBe(true);
    expect(valid(dm(MAX_NARROW_OPERAND_IDS + 1))).toBe(false);
    expect(valid([['channel', 'design', 'extra']])).toBe(false);
  });
});

describe('compiling a narrow', () => {
  it('finds a channel by name (any case, trimmed), by ID and by ID as text', async () => {
    const { bob } = org.users;
    const { design } = org.channels;
    const inDesign = [ids.plans, ids.link, ids.resolved];
    for (const operand of [' DESIGN ', design.id, String(design.id)]) {
      expect(await selected(bob, [term('channel', operand)])).toEqual(inDesign);
    }
    expect(await selected(bob, [term('stream', 'design')])).toEqual(inDesign);
    expect(await refusal(bob, [term('channel', 'nowhere')])).toEqual({
      code: 'BAD_NARROW',
      msg: 'Invalid narrow operator: unknown channel',
    });
  });

  it('includes channel history only where the user may read it', async () => {
    const { alice, carol, guest } = org.users;
    const user = (who: TestUser) => fullUser(who);
    const compiled = async (who: TestUser, channel: string, negated = false) =>
      compileNarrow(org.t.db, await user(who), org.realm, [term('channel', channel, negated)]);
    expect((await compiled(carol, 'design')).includeHistory).toBe(true);
    expect((await compiled(carol, 'design', true)).includeHistory).toBe(false);
    expect((await compiled(guest, 'design')).includeHistory).toBe(false);
    expect((await compiled(alice, 'secret')).includeHistory).toBe(false);
    // Carol never received #design's messages, yet reads them from its history.
    expect(await selected(carol, [term('channel', 'design')])).toEqual([
      ids.plans,
      ids.link,
      ids.resolved,
    ]);
    expect(await selected(guest, [term('channel', 'design')])).toEqual([]);
    expect(await selected(carol, [term('channels', 'public')])).toEqual([
      ids.plans,
      ids.link,
      ids.resolved,
    ]);
    expect(await refusal(carol, [term('channels', 'all')])).toMatchObject({ code: 'BAD_NARROW' });
  });

  it('matches topics without regard to case, and resolved topics', async () => {
    const { bob } = org.users;
    expect(await selected(bob, [term('channel', 'design'), term('topic', 'PLANS')])).toEqual([
      ids.plans,
      ids.link,
    ]);
    expect(await selected(bob, [term('is', 'resolved')])).toEqual([ids.resolved]);
    expect(await selected(bob, [term('topic', 'plans', true), term('channel', 'design')])).toEqual([
      ids.resolved,
    ]);
  });

  it('finds senders and direct-message conversations by email, ID or "me"', async () => {
    const { alice, bob, carol } = org.users;
    expect(await selected(bob, [term('sender', alice.email)])).toEqual([
      ids.plans,
      ids.toBob,
      ids.group,
    ]);
    expect(await selected(bob, [term('sender', 'me')])).toEqual([ids.link, ids.resolved]);
    expect(await selected(bob, [term('dm', alice.email)])).toEqual([ids.toBob]);
    expect(await selected(bob, [term('dm', [alice.user.id, carol.user.id])])).toEqual([ids.group]);
    expect(await selected(bob, [term('dm', `${alice.email}, ${carol.email}`)])).toEqual([
      ids.group,
    ]);
    expect(await selected(alice, [term('dm', 'me')])).toEqual([ids.self]);
    // A conversation that never existed selects nothing.
    expect(await selected(carol, [term('dm', bob.user.id)])).toEqual([]);
    expect(await selected(bob, [term('dm-including', carol.user.id)])).toEqual([ids.group]);
    expect(await selected(bob, [term('is', 'dm')])).toEqual([ids.toBob, ids.group]);
    expect(await refusal(bob, [term('sender', 'nobody@example.com')])).toEqual({
      code: 'BAD_NARROW',
      msg: 'Invalid narrow operator: unknown user nobody@example.com',
    });
  });

  it("reads the user's flags: starred, unread; links, IDs and full-text search", async () => {
    const { bob } = org.users;
    expect(await selected(bob, [term('is', 'starred')])).toEqual([ids.link]);
    expect(await selected(bob, [term('channel', 'design'), term('is', 'unread')])).toEqual([
      ids.link,
      ids.resolved,
    ]);
    expect(await selected(bob, [term('has', 'link')])).toEqual([ids.link]);
    expect(await selected(bob, [term('id', String(ids.toBob))])).toEqual([ids.toBob]);
    expect(await selected(bob, [term('search', 'zebra')])).toEqual([ids.plans]);
    const user = await fullUser(bob);
    const compiled = await compileNarrow(org.t.db, user, org.realm, [
      term('search', 'zebra'),
      term('search', 'plan', true),
      term('near', ids.plans),
    ]);
    // Only non-negated searches are highlighted; `near` does not filter.
    expect(compiled.search).toEqual(['zebra']);
    expect(compiled.conditions).toHaveLength(2);
  });

  it('refuses unknown operators and operands', async () => {
    const { bob } = org.users;
    for (const [terms, desc] of [
      [[term('color', 'red')], 'unknown operator color'],
      [[term('is', 'shiny')], "unknown 'is' operand shiny"],
      [[term('has', 'cats')], "unknown 'has' operand cats"],
      [[term('id', 'x')], 'invalid message ID x'],
    ] as const) {
      expect(await refusal(bob, [...terms])).toEqual({
        code: 'BAD_NARROW',
        msg: `Invalid narrow operator: ${desc}`,
      });
    }
  });
});

describe('the with operator', () => {
  const resolve = async (who: TestUser, terms: NarrowTerm[]) =>
    resolveWithOperator(org.t.db, await fullUser(who), terms);

  it("replaces the conversation terms with the message's conversation", async () => {
    const { bob, alice } = org.users;
    const { design } = org.channels;
    expect(
      await resolve(bob, [
        term('channel', 'elsewhere'),
        term('is', 'starred'),
        term('with', ids.link),
      ]),
    ).toEqual([term('channel', design.id), term('topic', 'plans'), term('is', 'starred')]);
    // Direct messages, 1:1 ones too, are direct-message groups: the operand lists everyone.
    const dmWith = async (operand: number | string) => {
      const [dm] = await resolve(bob, [term('with', operand)]);
      expect(dm.operator).toBe('dm');
      return [...(dm.operand as number[])].sort((x, y) => x - y);
    };
    const sorted = (...users: TestUser[]) => users.map((u) => u.user.id).sort((x, y) => x - y);
    expect(await dmWith(String(ids.toBob))).toEqual(sorted(alice, bob));
    expect(await dmWith(ids.group)).toEqual(sorted(alice, bob, org.users.carol));
    const plain = [term('is', 'starred')];
    expect(await resolve(bob, plain)).toBe(plain);
  });

  it('keeps a self-sufficient narrow when the message is out of reach, and refuses others', async () => {
    const { bob } = org.users;
    const conversation = [term('channel', 'design'), term('topic', 'x')];
    expect(await resolve(bob, [...conversation, term('with', ids.secret)])).toEqual(conversation);
    await expect(resolve(bob, [term('is', 'starred'), term('with', ids.secret)])).rejects.toThrow(
      "Invalid narrow operator: Invalid 'with' operator",
    );
    await expect(resolve(bob, [term('with', 'abc')])).rejects.toThrow(
      "Invalid narrow operator: Invalid 'with' operator",
    );
    await expect(resolve(bob, [term('with', ids.link), term('with', ids.plans)])).rejects.toThrow(
      "Invalid narrow operator combination: Duplicate 'with' operators.",
    );
  });
});
