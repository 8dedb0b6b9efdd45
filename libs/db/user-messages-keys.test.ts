/**
 * user_messages' keys are checked by statement triggers, not foreign keys (migration
 * 20261128130000_user_messages_statement_keys): the guarantees of the keys they replace, checked
 * against the real database, a concurrent delete included.
 */
import { Client } from 'pg';
import { databaseUrl } from '../../test/databases';
import type { TestUser } from '../../test/factories';
import { postToChannel } from '../../test/message-factories';
import { type Organization, organization } from '../../test/organization';

let org: Organization<'alice' | 'bob', 'ledger'>;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  org = await organization({
    members: { alice: 'member', bob: 'member' },
    channels: { ledger: ['alice', 'bob'] },
  });
  ({ alice, bob } = org.users);
});
afterAll(() => org.close());

const post = (content: string) =>
  postToChannel(org.t, org.realm, alice.user, org.channels.ledger, 'keys', content);

async function withClient<T>(use: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: databaseUrl(org.t.databaseName) });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

const copies = (messageId: number) => org.t.db.userMessage.count({ where: { messageId } });

describe('user_messages keys', () => {
  it('refuses a row for a user or a message that does not exist, under the old names', async () => {
    const id = await post('one');
    await withClient(async (c) => {
      for (const [sql, constraint] of [
        [`INSERT INTO user_messages (user_id, message_id) VALUES (2147483600, ${id})`, 'user_id'],
        [
          `INSERT INTO user_messages (user_id, message_id) VALUES (${bob.user.id}, 2147483600)`,
          'message_id',
        ],
      ]) {
        await expect(c.query(sql)).rejects.toMatchObject({
          code: '23503',
          constraint: `user_messages_${constraint}_fkey`,
        });
      }
      // One missing user among many fails the whole statement.
      await expect(
        c.query(
          `INSERT INTO user_messages (user_id, message_id)
           SELECT u, ${id} FROM unnest(ARRAY[${alice.user.id}, 2147483600]::int[]) u
           ON CONFLICT DO NOTHING`,
        ),
      ).rejects.toMatchObject({ code: '23503' });
    });
    expect(await copies(id)).toBe(2);
  });

  it('deletes the rows of a deleted message, and refuses to change a key', async () => {
    const id = await post('two');
    expect(await copies(id)).toBe(2);
    await withClient(async (c) => {
      await expect(
        c.query(
          `UPDATE user_messages SET user_id = ${bob.user.id} WHERE message_id = ${id} AND user_id = ${alice.user.id}`,
        ),
      ).rejects.toMatchObject({ code: '23001' });
      await expect(
        c.query(`UPDATE messages SET id = id + 1000000 WHERE id = ${id}`),
      ).rejects.toMatchObject({
        code: '23001',
      });
      await c.query(`DELETE FROM messages WHERE id = ${id}`);
    });
    expect(await copies(id)).toBe(0);
  });

  it('makes a concurrent insert wait for a delete of its message, then fail', async () => {
    const id = await post('three');
    await withClient((deleter) =>
      withClient(async (inserter) => {
        await deleter.query('BEGIN');
        await deleter.query(`DELETE FROM messages WHERE id = ${id}`);
        const insert = inserter
          .query(
            `INSERT INTO user_messages (user_id, message_id, flags) VALUES (${bob.user.id}, ${id}, 0)
                  ON CONFLICT (user_id, message_id) DO UPDATE SET flags = 1`,
          )
          .then(
            () => 'inserted',
            (err: { code?: string }) => err.code,
          );
        await new Promise((resolve) => setTimeout(resolve, 200));
        await deleter.query('COMMIT');
        expect(await insert).toBe('23503');
      }),
    );
    expect(await copies(id)).toBe(0);
  });

  it('makes a delete wait for an insert that locked its message, and take the new row too', async () => {
    const id = await post('four');
    await org.t.db.userMessage.deleteMany({ where: { messageId: id, userId: bob.user.id } });
    await withClient((inserter) =>
      withClient(async (deleter) => {
        await inserter.query('BEGIN');
        await inserter.query(
          `INSERT INTO user_messages (user_id, message_id, flags) VALUES (${bob.user.id}, ${id}, 0)`,
        );
        const deletion = deleter.query(`DELETE FROM messages WHERE id = ${id}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
        await inserter.query('COMMIT');
        await deletion;
      }),
    );
    expect(await copies(id)).toBe(0);
  });

  it('deletes the rows of a deleted user', async () => {
    const id = await post('five');
    await withClient((c) => c.query(`DELETE FROM users WHERE id = ${bob.user.id}`));
    expect(await org.t.db.userMessage.count({ where: { userId: bob.user.id } })).toBe(0);
    expect(await copies(id)).toBe(1);
  });
});
