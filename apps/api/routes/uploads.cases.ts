import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import type { Stream } from '../../../generated/prisma/client';
import { attachmentKey } from '../../../libs/domain/attachments/storage';
import { uploadStore } from '../../../libs/storage/upload-store';
import { temporaryUploadUrl } from '../../../libs/domain/attachments/temporary-url';
import { makeRealm, makeUser, type TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { makeChannel } from '../../../test/channel-factories';
import { multipartFile, PNG_PIXEL } from '../../../test/upload-bodies';
import { expectOpenApiResponse } from '../../../test/openapi';
import { eventsAfter, outboxMark } from '../../../test/outbox';
import { type Organization, organization } from '../../../test/organization';
import {
  startUploadBackend,
  type RunningBackend,
  type UploadBackend,
} from '../../../test/upload-backends';

/**
 * Upload, download and attachment cases, run against each upload store: uploads.test.ts on
 * local disk, uploads-s3.test.ts against a real S3-protocol server on loopback.
 */
export function uploadCases(kind: UploadBackend): void {
  let t: TestContext;
  let org: Organization;
  let alice: TestUser;
  let bob: TestUser;
  let guest: TestUser;
  let publicChannel: Stream;
  let backend: RunningBackend;

  beforeAll(async () => {
    backend = await startUploadBackend(kind);
    org = await organization({
      env: { ...backend.env, MAX_FILE_UPLOAD_SIZE_MIB: '1' },
      members: {
        alice: { fullName: 'Alice Uploader' },
        bob: { fullName: 'Bob Reader' },
        guest: 'guest',
      },
      channels: { 'shared files': ['alice', 'bob'] },
    });
    ({ t } = org);
    ({ alice, bob, guest } = org.users);
    publicChannel = org.channels['shared files'];
  });
  afterAll(async () => {
    await org.close();
    await backend.close();
  });

  const upload = (
    auth: string,
    files: { name: string; body: Buffer; type?: string }[] = [
      { name: 'zulip.txt', body: Buffer.from('zulip!') },
    ],
  ) => {
    let req = org.as(null).post('/user_uploads');
    req = req.set('Authorization', auth);
    files.forEach((f, i) => {
      req = req.attach(`file${i}`, f.body, {
        filename: f.name,
        contentType: f.type ?? 'text/plain',
      });
    });
    return req;
  };

  /** Uploads a small text file as the user and returns its `/user_uploads/...` URL. */
  async function uploaded(user: TestUser, body = 'zulip!', name = 'zulip.txt'): Promise<string> {
    const res = await upload(user.auth, [{ name, body: Buffer.from(body) }]);
    expect(res.status).toBe(200);
    return res.body.url as string;
  }

  /** Whether the upload store (disk or bucket) holds the attachment's file. */
  const stored = (pathId: string) => uploadStore(t.config).exists(attachmentKey(pathId));

  const pathIdOf = (url: string) => url.slice('/user_uploads/'.length);
  const attachmentFor = (url: string) =>
    t.db.attachment.findUniqueOrThrow({ where: { pathId: pathIdOf(url) } });

  /** The temporary-URL dance of an API client: ask `/api/v1/user_uploads/...`, fetch the answer. */
  async function download(user: TestUser, url: string): Promise<request.Response> {
    const res = await org.as(user).get(url);
    if (res.status !== 200) return res;
    expectOpenApiResponse('/user_uploads/{realm_id_str}/{filename}', 'get', res.body);
    return request(t.app)
      .get(res.body.url as string)
      .set('Host', org.host)
      .buffer(true);
  }

  const send = (user: TestUser, content: string, to: Stream = publicChannel) =>
    org.as(user).post('/messages', {
      type: 'stream',
      to: to.id,
      topic: 'files',
      content,
    });

  describe('POST /user_uploads', () => {
    it('stores the file, answers uri, url and filename, and tells the uploader', async () => {
      const mark = await outboxMark(t);
      const res = await upload(alice.auth, [
        { name: 'foo bar--baz.txt', body: Buffer.from('hello file') },
      ]);
      expect(res.status).toBe(200);
      expectOpenApiResponse('/user_uploads', 'post', res.body, {
        newerFields: ['url', 'filename'],
      });
      expect(res.body.url).toMatch(
        new RegExp(`^/user_uploads/${org.realm.id}/[A-Za-z0-9_-]{24}/foo-bar-baz\\.txt$`),
      );
      expect(res.body.uri).toBe(res.body.url);
      expect(res.body.filename).toBe('foo bar--baz.txt');

      const row = await attachmentFor(res.body.url);
      expect(row).toMatchObject({ ownerId: alice.user.id, fileName: 'foo bar--baz.txt', size: 10 });
      expect(await stored(row.pathId)).toBe(true);
      const events = await eventsAfter(t, mark);
      expect(events).toEqual([
        {
          users: [alice.user.id],
          event: {
            type: 'attachment',
            op: 'add',
            attachment: {
              id: row.id,
              name: 'foo bar--baz.txt',
              path_id: row.pathId,
              size: 10,
              create_time: row.createTime.getTime(),
              messages: [],
            },
            upload_space_used: expect.any(Number),
          },
        },
      ]);
    });

    it('keeps Unicode names and takes only the base name of a path', async () => {
      const res = await upload(alice.auth, [{ name: 'Здравейте.txt', body: Buffer.from('x') }]);
      expect(res.body.url).toMatch(/\/Здравейте\.txt$/);
      expect(res.body.filename).toBe('Здравейте.txt');
      const dots = await upload(alice.auth, [{ name: '../.. ', body: Buffer.from('x') }]);
      expect(dots.body.filename).toBe('.. ');
      expect(dots.body.url).toMatch(/\/uploaded-file$/);
      const encoded = await upload(alice.auth, [{ name: 'a%20b%3F.txt', body: Buffer.from('x') }]);
      expect(encoded.body.filename).toBe('a b?.txt');
      expect(encoded.body.url).toMatch(/\/a-b\.txt$/);
    });

    it('refuses no file, two files, a file over the limit and a full quota', async () => {
      const noFile = await org.as(alice).post('/user_uploads').field('note', 'no file here');
      expect(noFile.body).toEqual({
        result: 'error',
        code: 'BAD_REQUEST',
        msg: 'You must specify a file to upload',
      });
      const two = await upload(alice.auth, [
        { name: 'a.txt', body: Buffer.from('a') },
        { name: 'b.txt', body: Buffer.from('b') },
      ]);
      expect(two.body.msg).toBe('You may only upload one file at a time');

      const exact = await upload(alice.auth, [
        { name: 'max.bin', body: Buffer.alloc(1024 * 1024) },
      ]);
      expect(exact.status).toBe(200);
      const over = await upload(alice.auth, [
        { name: 'big.bin', body: Buffer.alloc(1024 * 1024 + 1) },
      ]);
      expect(over.status).toBe(400);
      expect(over.body).toEqual({
        result: 'error',
        code: 'BAD_REQUEST',
        msg: "File is larger than this server's configured maximum upload size (1 MiB).",
      });
      expect(await t.db.attachment.count({ where: { fileName: 'big.bin' } })).toBe(0);

      const quotaOrg = await makeRealm(t);
      await t.db.realm.update({ where: { id: quotaOrg.realm.id }, data: { uploadQuotaGb: 1 } });
      const first = await request(t.app)
        .post('/api/v1/user_uploads')
        .set('Host', quotaOrg.host)
        .set('Authorization', quotaOrg.owner.auth)
        .attach('file', Buffer.from('zulip!'), 'one.txt');
      await t.db.attachment.update({
        where: { pathId: pathIdOf(first.body.url) },
        data: { size: 1024 ** 3 - 11 },
      });
      const fits = await request(t.app)
        .post('/api/v1/user_uploads')
        .set('Host', quotaOrg.host)
        .set('Authorization', quotaOrg.owner.auth)
        .attach('file', Buffer.from('zulip!'), 'two.txt');
      expect(fits.status).toBe(200);
      const full = await request(t.app)
        .post('/api/v1/user_uploads')
        .set('Host', quotaOrg.host)
        .set('Authorization', quotaOrg.owner.auth)
        .attach('file', Buffer.from('zulip!'), 'three.txt');
      expect(full.body.msg).toBe("Upload would exceed your organization's upload quota.");
    });

    it('spools nothing for anonymous callers and leaves no spooled file behind', async () => {
      const anonymous = await org
        .as(null)
        .post('/user_uploads')
        .attach('file', Buffer.from('zulip!'), 'anon.txt');
      expect(anonymous.status).toBe(401);
      const spool = path.join(t.config.uploadsDir, 'tmp');
      const spooled = () => (existsSync(spool) ? readdirSync(spool) : []);
      for (let i = 0; i < 50 && spooled().length; i++) await new Promise((r) => setTimeout(r, 20));
      expect(spooled()).toEqual([]);
      expect(await t.db.attachment.count({ where: { fileName: 'anon.txt' } })).toBe(0);
    });

    it('reports the limit in register', async () => {
      const res = await org.as(alice).post('/register', {
        fetch_event_types: '["realm"]',
      });
      expect(res.body.max_file_upload_size_mib).toBe(1);
    });
  });

  describe('GET /user_uploads/{realm_id_str}/{filename}', () => {
    it('gives the uploader a temporary URL that serves the same bytes without credentials', async () => {
      const body = Buffer.from([0, 1, 2, 250, 251, 252]);
      const res = await upload(alice.auth, [
        { name: 'blob.bin', body, type: 'application/octet-stream' },
      ]);
      const file = await download(alice, res.body.url);
      expect(file.status).toBe(200);
      expect(Buffer.compare(file.body as Buffer, body)).toBe(0);
      expect(file.headers['content-type']).toBe('application/octet-stream');
      expect(file.headers['content-disposition']).toBe(
        `attachment; filename="blob.bin"; filename*=UTF-8''blob.bin`,
      );
      expect(file.headers['x-content-type-options']).toBe('nosniff');
    });

    it('serves the file at /user_uploads/... to Basic auth, inline for text', async () => {
      const url = await uploaded(alice, 'plain words');
      const res = await request(t.app)
        .get(url)
        .set('Host', org.host)
        .set('Authorization', alice.auth);
      expect(res.status).toBe(200);
      expect(res.text).toBe('plain words');
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.headers['content-disposition']).toMatch(/^inline;/);
      const anonymous = await request(t.app).get(url).set('Host', org.host);
      expect(anonymous.status).toBe(401);
      const other = await request(t.app)
        .get(url)
        .set('Host', org.host)
        .set('Authorization', bob.auth);
      expect(other.status).toBe(403);
    });

    it('serves a file whose upload part named no type with the type its name suggests (issue 14)', async () => {
      const post = (form: { type: string; body: Buffer }) =>
        request(t.app)
          .post('/api/v1/user_uploads')
          .set('Host', org.host)
          .set('Authorization', alice.auth)
          .set('Content-Type', form.type)
          .send(form.body);
      for (const partType of [undefined, 'application/octet-stream']) {
        const res = await post(multipartFile('pixel.png', PNG_PIXEL, partType));
        expect(res.body).toMatchObject({ result: 'success' });
        const served = await request(t.app)
          .get(res.body.url as string)
          .set('Host', org.host)
          .set('Authorization', alice.auth);
        expect(served.status).toBe(200);
        expect(served.headers['content-type']).toBe('image/png');
        expect(served.headers['content-disposition']).toMatch(/^inline;/);
        expect(Buffer.from(served.body as Buffer)).toEqual(PNG_PIXEL);
      }
      // A type the part states is kept.
      const stated = await post(multipartFile('data.png', PNG_PIXEL, 'image/gif'));
      expect((await attachmentFor(stated.body.url as string)).contentType).toBe('image/gif');
    });

    it('refuses bad, altered and expired temporary URLs', async () => {
      const url = await uploaded(alice);
      const asked = await org.as(alice).get(url);
      const temporary = asked.body.url as string;
      expect(temporary).toMatch(/^\/user_uploads\/temporary\/[^/]+\/zulip\.txt$/);
      const get = (u: string) => request(t.app).get(u).set('Host', org.host);
      expect((await get('/user_uploads/temporary/badtoken/file.png')).body).toEqual({
        result: 'error',
        code: 'BAD_REQUEST',
        msg: 'Invalid token',
      });
      const renamed = temporary.replace(/zulip\.txt$/, 'differentname.exe');
      expect((await get(renamed)).body.msg).toBe('Invalid filename');
      const old = temporaryUploadUrl(t.config, pathIdOf(url), new Date(Date.now() - 61_000));
      expect((await get(old)).body.msg).toBe('Invalid token');
      const forged = temporary.replace(/\.[^.]+\/zulip\.txt$/, '.AAAA/zulip.txt');
      expect((await get(forged)).body.msg).toBe('Invalid token');
    });

    it('refuses users who cannot see a message linking the file, with 403', async () => {
      const url = await uploaded(alice);
      const refused = await org.as(bob).get(url);
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({
        result: 'error',
        code: 'BAD_REQUEST',
        msg: 'You are not authorized to view this file.',
      });
      const missing = await org.as(bob).get(`/user_uploads/${org.realm.id}/ab/nope.txt`);
      expect(missing.status).toBe(404);
      expect(missing.body.msg).toBe('This file does not exist or has been deleted.');

      // Shared in a public channel: members may read it (even unsubscribed), guests may not.
      expect((await send(alice, `look [zulip.txt](${url})`)).status).toBe(200);
      const carol = await makeUser(t, org.realm);
      expect((await download(bob, url)).text).toBe('zulip!');
      expect((await download(carol, url)).status).toBe(200);
      expect((await org.as(guest).get(url)).status).toBe(403);

      // In a private channel without shared history, only those who received the message may.
      const secret = await makeChannel(t, org.realm, {
        inviteOnly: true,
        historyPublicToSubscribers: false,
        subscribers: [alice.user, bob.user],
      });
      const privateUrl = await uploaded(alice, 'secret');
      await send(alice, `[s](${privateUrl})`, secret);
      expect((await download(bob, privateUrl)).text).toBe('secret');
      const late = await makeUser(t, org.realm);
      await t.db.subscription.create({
        data: { userId: late.user.id, recipientId: secret.recipientId! },
      });
      expect((await org.as(late).get(privateUrl)).status).toBe(403);
      expect((await org.as(carol).get(privateUrl)).status).toBe(403);

      // Another organization's user never.
      const elsewhere = await makeRealm(t);
      const foreign = await request(t.app)
        .get(`/api/v1${url}`)
        .set('Host', elsewhere.host)
        .set('Authorization', elsewhere.owner.auth);
      expect(foreign.status).toBe(403);
    });
  });

  describe('claiming attachments', () => {
    it('links the files a sent message references and tells their owner', async () => {
      const url = await uploaded(alice);
      const attachment = await attachmentFor(url);
      const mark = await outboxMark(t);
      const absolute = `http://${org.host}${url}`;
      const sent = await send(alice, `two links: [a](${absolute}) and [b](${url})`);
      const messageId = sent.body.id as number;
      const links = await t.db.attachmentMessage.findMany({
        where: { attachmentId: attachment.id },
      });
      expect(links.map((l) => l.messageId)).toEqual([messageId]);
      const message = await t.db.message.findUniqueOrThrow({ where: { id: messageId } });
      const events = (await eventsAfter(t, mark)).filter((e) => e.event.type === 'attachment');
      expect(events).toEqual([
        {
          users: [alice.user.id],
          event: expect.objectContaining({
            op: 'update',
            attachment: expect.objectContaining({
              id: attachment.id,
              messages: [{ id: messageId, date_sent: message.dateSent.getTime() }],
            }),
          }),
        },
      ]);
    });

    it('links the files a scheduled message references, and follows edits of its content', async () => {
      const url = await uploaded(alice);
      const attachment = await attachmentFor(url);
      const secret = await attachmentFor(await uploaded(bob));
      const scheduled = await org.as(alice).post('/scheduled_messages', {
        type: 'stream',
        to: publicChannel.id,
        topic: 'later',
        content: `[mine](${url}) and [not mine](/user_uploads/${secret.pathId})`,
        scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 30 * 86_400,
      });
      expect(scheduled.status).toBe(200);
      const id = scheduled.body.scheduled_message_id as number;
      const linked = () =>
        t.db.attachmentScheduledMessage.findMany({ where: { scheduledMessageId: id } });
      expect((await linked()).map((l) => l.attachmentId)).toEqual([attachment.id]);
      const edited = await org.as(alice).patch(`/scheduled_messages/${id}`, {
        content: 'no files any more',
      });
      expect(edited.status).toBe(200);
      expect(await linked()).toEqual([]);
    });

    it('lets users who can read a file reshare it, and ignores links others cannot read', async () => {
      const url = await uploaded(alice);
      const attachment = await attachmentFor(url);
      const dm = await org.as(alice).post('/messages', {
        type: 'direct',
        to: JSON.stringify([bob.user.id]),
        content: `[f](${url})`,
      });
      expect(dm.status).toBe(200);
      const carol = await makeUser(t, org.realm);
      await send(carol, `not mine: [f](${url})`);
      const count = () => t.db.attachmentMessage.count({ where: { attachmentId: attachment.id } });
      expect(await count()).toBe(1);
      await send(bob, `resharing [f](${url})`);
      expect(await count()).toBe(2);
      expect((await download(carol, url)).text).toBe('zulip!');
    });

    it('follows edits: new links claim, removed links detach', async () => {
      const first = await uploaded(alice, 'one', 'one.txt');
      const second = await uploaded(alice, 'two', 'two.txt');
      const sent = await send(alice, `[1](${first})`);
      const id = sent.body.id as number;
      const edited = await org.as(alice).patch(`/messages/${id}`, {
        content: `[2](${second})`,
      });
      expect(edited.status).toBe(200);
      const one = await attachmentFor(first);
      expect(edited.body.detached_uploads).toEqual([
        expect.objectContaining({ id: one.id, name: 'one.txt', messages: [] }),
      ]);
      const linked = await t.db.attachmentMessage.findMany({ where: { messageId: id } });
      expect(linked.map((l) => l.attachmentId)).toEqual([(await attachmentFor(second)).id]);
      const plain = await org.as(alice).patch(`/messages/${id}`, {
        content: 'no files now',
      });
      expect(plain.body.detached_uploads).toHaveLength(1);
      expect(await t.db.attachmentMessage.count({ where: { messageId: id } })).toBe(0);
    });
  });

  describe('GET /attachments and DELETE /attachments/{id}', () => {
    it('lists the user’s files with their messages, and deletes them', async () => {
      const owner = await makeUser(t, org.realm);
      await t.db.subscription.create({
        data: { userId: owner.user.id, recipientId: publicChannel.recipientId! },
      });
      const url = await uploaded(owner, 'listed');
      const sent = await send(owner, `[l](${url})`);
      const attachment = await attachmentFor(url);
      const message = await t.db.message.findUniqueOrThrow({ where: { id: sent.body.id } });

      const listed = await org.as(owner).get('/attachments');
      expectOpenApiResponse('/attachments', 'get', listed.body);
      const total = await t.db.attachment.aggregate({
        where: { realmId: org.realm.id },
        _sum: { size: true },
      });
      expect(listed.body).toEqual({
        result: 'success',
        msg: '',
        attachments: [
          {
            id: attachment.id,
            name: 'zulip.txt',
            path_id: attachment.pathId,
            size: 6,
            create_time: attachment.createTime.getTime(),
            messages: [{ id: message.id, date_sent: message.dateSent.getTime() }],
          },
        ],
        upload_space_used: total._sum.size,
      });

      const byOther = await org.as(alice).delete(`/attachments/${attachment.id}`);
      expect(byOther.body).toEqual({
        result: 'error',
        code: 'BAD_REQUEST',
        msg: 'Invalid attachment',
      });

      const mark = await outboxMark(t);
      const del = await org.as(owner).delete(`/attachments/${attachment.id}`);
      expect(del.body).toEqual({ result: 'success', msg: '' });
      expect(await stored(attachment.pathId)).toBe(false);
      expect(await t.db.attachment.findUnique({ where: { id: attachment.id } })).toBeNull();
      expect(await eventsAfter(t, mark)).toEqual([
        {
          users: [owner.user.id],
          event: {
            type: 'attachment',
            op: 'remove',
            attachment: { id: attachment.id },
            upload_space_used: (total._sum.size ?? 0) - 6,
          },
        },
      ]);
      const again = await org.as(owner).delete(`/attachments/${attachment.id}`);
      expect(again.body.msg).toBe('Invalid attachment');
      expect((await org.as(owner).get(url)).status).toBe(404);
      const empty = await org.as(owner).get('/attachments');
      expect(empty.body.attachments).toEqual([]);
    });
  });
}
