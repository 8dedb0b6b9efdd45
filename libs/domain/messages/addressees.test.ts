import { sqlPool } from '../../db/sql';
import { parseSchema } from '../../db/schema-introspection';
import { organization, type Organization } from '../../../test/organization';
import { resolveChannel, STREAM_COLUMNS } from './addressees';

let org: Organization<'alice', 'design' | 'a_c' | 'secret'>;

beforeAll(async () => {
  org = await organization({
    members: { alice: 'member' },
    channels: {
      design: ['alice'],
      a_c: ['alice'],
      secret: { subscribers: ['alice'], inviteOnly: true, historyPublicToSubscribers: false },
    },
  });
  // Values other than the defaults, so a column read under the wrong name shows.
  await org.t.db.stream.update({
    where: { id: org.channels.secret.id },
    data: { description: 'quiet', messageRetentionDays: 30, isRecentlyActive: false },
  });
});
afterAll(() => org.close());

describe('resolveChannel on plain pg', () => {
  const both = async (to: Parameters<typeof resolveChannel>[2]) => {
    const settle = (p: Promise<unknown>) =>
      p.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
    return Promise.all([
      settle(resolveChannel(org.t.db, org.realm, to)),
      settle(resolveChannel(org.t.db, org.realm, to, { pool: sqlPool(org.t) })),
    ]);
  };

  it('reads every column of the Prisma model', () => {
    const model = parseSchema().find((m) => m.name === 'Stream')!;
    const selected = [...STREAM_COLUMNS.text.matchAll(/(\w+)(?: AS "(\w+)")?\s*(?:,|$)/g)].map(
      ([, column, field]) => [field ?? column, column],
    );
    expect(selected.sort()).toEqual(model.columns.map((c) => [c.field, c.column]).sort());
  });

  it('returns what Prisma returns, by id and by name in any case', async () => {
    const { secret, design } = org.channels;
    for (const to of [secret.id, [design.id], 'SECRET', ' Design ', ['design']]) {
      const [prisma, plain] = await both(to);
      expect(plain).toEqual(prisma);
      expect(plain).toHaveProperty('value.id');
    }
  });

  it('refuses what Prisma refuses, with the same error', async () => {
    for (const to of [999999, 'abc', 'a%c', 'nope', [1, 2]]) {
      const [prisma, plain] = await both(to);
      expect(plain).toEqual(prisma);
      expect(plain).toHaveProperty('error');
    }
  });
});
