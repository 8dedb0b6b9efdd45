import { execFileSync } from 'node:child_process';
import { sqlPool } from '../libs/db/sql';
import { decryptApiKey } from '../libs/domain/users/api-keys';
import { attachmentKey } from '../libs/domain/attachments/storage';
import { uploadStore } from '../libs/storage/upload-store';
import { basicAuth, type TestContext } from './harness';
import { client, type Client } from './requests';

type Row = Record<string, unknown>;

/** A zip of `dir`'s files, written by Python's zipfile as an export tool would write it. */
export function zipDirectory(dir: string, file: string): string {
  execFileSync('python3', [
    '-c',
    `
import os, sys, zipfile
root, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:
    for base, dirs, files in sorted(os.walk(root)):
        for name in sorted(files):
            full = os.path.join(base, name)
            z.write(full, os.path.relpath(full, root))
`,
    dir,
    file,
  ]);
  return file;
}

/** Rows of one SQL query over the imported organization (`$1` is its id). */
export async function rows(t: TestContext, realmId: number, sql: string): Promise<Row[]> {
  return (await sqlPool(t).query<Row>(sql, [realmId])).rows;
}

/** Messages with sender, recipient (channel name, or the members' emails), topic and flags. */
export async function importedMessages(t: TestContext, realmId: number): Promise<Row[]> {
  return rows(
    t,
    realmId,
    `SELECT m.id, s.email AS sender, r.type AS recipient_type,
       CASE r.type WHEN 2 THEN (SELECT name FROM streams WHERE id = r.type_id)
         ELSE (SELECT string_agg(u.email, ',' ORDER BY u.email) FROM subscriptions sub
                JOIN users u ON u.id = sub.user_id WHERE sub.recipient_id = r.id) END AS recipient,
       m.subject AS topic, m.content, m.rendered_content, m.has_attachment,
       (SELECT json_object_agg(u.email, um.flags) FROM user_messages um
          JOIN users u ON u.id = um.user_id WHERE um.message_id = m.id) AS flags
     FROM messages m JOIN users s ON s.id = m.sender_id JOIN recipients r ON r.id = m.recipient_id
     WHERE m.realm_id = $1 ORDER BY m.id`,
  );
}

/** An API client of the imported organization, as one of its users (by email). */
export async function importedClient(
  t: TestContext,
  realmId: number,
  email: string,
): Promise<Client> {
  const [user] = await rows(
    t,
    realmId,
    `SELECT u.api_key_ciphertext, r.string_id FROM users u JOIN realms r ON r.id = u.realm_id
      WHERE u.realm_id = $1 AND u.email = '${email}'`,
  );
  const key = decryptApiKey(user.api_key_ciphertext as string, t.config.secretKey);
  return client(t, `${user.string_id as string}.${t.config.externalHost}`, {
    auth: basicAuth(email, key),
  });
}

/** An upload's bytes, by the file name it was uploaded under. */
export async function uploadBytes(t: TestContext, realmId: number, fileName: string) {
  const [a] = await rows(
    t,
    realmId,
    `SELECT path_id FROM attachments WHERE realm_id = $1 AND file_name = '${fileName}'`,
  );
  if (!a) return null;
  const object = await uploadStore(t.config).read(attachmentKey(a.path_id as string));
  if (!object) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of object.body) chunks.push(chunk as Buffer);
  return { pathId: a.path_id as string, bytes: Buffer.concat(chunks).toString('utf8') };
}

/**
 * What every import must leave: its messages read, found by search through the API, and a
 * new message numbered past them.
 */
export async function expectReadSearchableAndContinued(
  t: TestContext,
  realmId: number,
  options: { email: string; channel: string; word: string },
) {
  const unread = await rows(
    t,
    realmId,
    `SELECT count(*)::int AS n FROM user_messages um JOIN messages m ON m.id = um.message_id
      WHERE m.realm_id = $1 AND um.flags & 1 = 0`,
  );
  expect(unread[0].n).toBe(0);
  const api = await importedClient(t, realmId, options.email);
  const found = await api.get('/messages', {
    anchor: 'newest',
    num_before: 10,
    num_after: 0,
    narrow: JSON.stringify([{ operator: 'search', operand: options.word }]),
  });
  expect(found.status).toBe(200);
  expect((found.body as { messages: unknown[] }).messages.length).toBeGreaterThan(0);
  const [newest] = await rows(
    t,
    realmId,
    'SELECT max(id)::int AS id FROM messages WHERE realm_id = $1',
  );
  const sent = await api.post('/messages', {
    type: 'stream',
    to: options.channel,
    topic: 'after the import',
    content: 'a new message',
  });
  expect(sent.status).toBe(200);
  expect((sent.body as { id: number }).id).toBeGreaterThan(newest.id as number);
}
