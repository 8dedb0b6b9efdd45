import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as tar from 'tar';
import { makeRealm, makeUserGroup } from '../../test/factories';
import { startTestContext } from '../../test/harness';
import { type Organization, organization } from '../../test/organization';
import { PNG_PIXEL } from '../../test/upload-bodies';
import { realmSnapshot } from '../../test/realm-snapshot';
import { sendMessage } from '../domain/messages/send-message';
import { exportRealm } from './export-realm';
import { importRealm } from './import-realm';

jest.setTimeout(180_000);

let org: Organization<'alice' | 'bob' | 'carol' | 'bot', 'design' | 'secret'>;
let work: string;

beforeAll(async () => {
  org = await organization({
    members: { alice: 'administrator', bob: 'member', carol: 'guest', bot: { botOf: 'alice' } },
    channels: {
      design: ['owner', 'alice', 'bob'],
      secret: { subscribers: ['alice', 'carol'], inviteOnly: true },
    },
  });
  work = await mkdtemp(path.join(os.tmpdir(), 'round-trip-'));
  const { alice, bob, carol } = org.users;
  const upload = await org
    .as(alice)
    .post('/user_uploads')
    .attach('file', Buffer.from('the plan, in bytes\n'), { filename: 'plan.txt' });
  expect(upload.status).toBe(200);
  const send = async (who: typeof alice, form: Record<string, string>) => {
    const res = await org.as(who).post('/messages', form);
    expect(res.status).toBe(200);
    return res.body.id as number;
  };
  const first = await send(alice, {
    type: 'stream',
    to: 'design',
    topic: 'launch',
    content: `The plan: [plan.txt](${upload.body.url as string}) **bold**`,
  });
  await send(bob, {
    type: 'stream',
    to: 'design',
    topic: 'launch',
    content: 'Looks good @**Alice**',
  });
  await send(carol, { type: 'stream', to: 'secret', topic: 'hush', content: 'a secret' });
  await send(bob, { type: 'direct', to: JSON.stringify([alice.user.id]), content: 'psst' });
  await send(carol, {
    type: 'direct',
    to: JSON.stringify([alice.user.id, bob.user.id]),
    content: 'three of us',
  });
  expect(
    (await org.as(alice).patch(`/messages/${first}`, { content: 'The plan, edited' })).status,
  ).toBe(200);
  expect(
    (await org.as(bob).post(`/messages/${first}/reactions`, { emoji_name: 'octopus' })).status,
  ).toBe(200);
  expect(
    (
      await org
        .as(bob)
        .post('/messages/flags', { messages: JSON.stringify([first]), op: 'add', flag: 'starred' })
    ).status,
  ).toBe(200);
  expect(
    (
      await org
        .as(alice)
        .post('/users/me/avatar')
        .attach('file', PNG_PIXEL, { filename: 'me.png', contentType: 'image/png' })
    ).status,
  ).toBe(200);
  expect(
    (
      await org
        .as(alice)
        .post('/realm/emoji/party')
        .attach('file', PNG_PIXEL, { filename: 'party.png', contentType: 'image/png' })
    ).status,
  ).toBe(200);
  await makeUserGroup(org.t, org.realm, { name: 'designers', members: [alice.user, bob.user] });
  expect((await org.as(org.owner).delete(`/users/${carol.user.id}`)).status).toBe(200);
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
  await org.close();
});

describe('export then import (Zulip format)', () => {
  it('brings back every user, channel, subscription, message, reaction, flag and upload', async () => {
    const file = path.join(work, 'export.tar.gz');
    const exported = await exportRealm(org.t, { realmId: org.realm.id, file });
    expect(exported).toMatchObject({ messages: 5, uploads: 1 });

    // A fresh server: its own database and upload directory.
    const fresh = await startTestContext({ UPLOADS_DIR: path.join(work, 'fresh-uploads') });
    try {
      // Rows already there, so the imported ids differ from the exported ones.
      await makeRealm(fresh, { stringId: 'first' });
      const imported = await importRealm(fresh, { from: file, subdomain: 'moved' });
      expect(imported).toMatchObject({
        format: 'zulip',
        messages: 5,
        reactions: 1,
        uploads: 1,
        avatars: 2,
        emoji: 1,
        newApiKeys: 0,
        missingCount: 0,
      });
      expect(imported.realmId).not.toBe(org.realm.id);
      expect(imported.ignoredFields).toEqual({});

      const before = await realmSnapshot(org.t, org.realm.id);
      const after = await realmSnapshot(fresh, imported.realmId);
      expect(after).toEqual(before);
      expect((before.messages as unknown[]).length).toBe(5);

      // Ids continue past the imported rows.
      const newest = await fresh.db.message.aggregate({
        where: { realmId: imported.realmId },
        _max: { id: true },
      });
      const realm = await fresh.db.realm.findUniqueOrThrow({ where: { id: imported.realmId } });
      const next = await sendMessage(fresh, {
        sender: await fresh.db.user.findFirstOrThrow({
          where: { realmId: realm.id, email: org.users.alice.email },
        }),
        realm,
        type: 'stream',
        to: 'design',
        topic: 'later',
        content: 'after the import',
        clientName: 'test',
      });
      expect(next.id).toBeGreaterThan(newest._max.id ?? 0);
    } finally {
      await fresh.close();
    }
  });

  it('refuses an existing subdomain; a failed run leaves nothing and can be run again', async () => {
    const file = path.join(work, 'again.tar.gz');
    await exportRealm(org.t, { realmId: org.realm.id, file });
    const dir = path.join(work, 'again');
    await mkdir(dir);
    await tar.x({ file, cwd: dir, strip: 1 });
    const messages = path.join(dir, 'messages-000001.json');
    const good = await readFile(messages, 'utf8');
    await writeFile(messages, good.slice(0, good.length / 2));
    const realms = await org.t.db.realm.count();
    const attachments = await org.t.db.attachment.count();

    await expect(importRealm(org.t, { from: dir, subdomain: 'copy' })).rejects.toThrow(
      /^messages-000001\.json: malformed JSON/,
    );
    expect(await org.t.db.realm.count()).toBe(realms);
    expect(await org.t.db.attachment.count()).toBe(attachments);

    await writeFile(messages, good);
    const copy = await importRealm(org.t, { from: dir, subdomain: 'copy' });
    // The same server already has these API keys: the copies get new ones.
    expect(copy).toMatchObject({ messages: 5, newApiKeys: 6 });
    expect(await org.t.db.realm.count()).toBe(realms + 1);

    await expect(importRealm(org.t, { from: file, subdomain: 'copy' })).rejects.toThrow(
      "--subdomain: an organization 'copy' already exists",
    );
    expect(await org.t.db.realm.count()).toBe(realms + 1);
  });
});
