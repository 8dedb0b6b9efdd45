import request from 'supertest';
import { type Organization, organization } from '../../../test/organization';
import { runRealmExport } from '../../../libs/import-export/run-realm-export';
import { ExportStatus } from '../../../libs/domain/realm-exports/format-exports';

jest.setTimeout(120_000);

let org: Organization<'admin' | 'bob', 'design' | 'secret'>;

beforeAll(async () => {
  org = await organization({
    members: { admin: 'administrator', bob: 'member' },
    channels: {
      design: ['admin', 'bob'],
      secret: { subscribers: ['admin', 'bob'], inviteOnly: true },
    },
    events: true,
  });
  for (const [to, content] of [
    ['design', 'public words'],
    ['secret', 'private words'],
  ]) {
    const res = await org
      .as(org.users.bob)
      .post('/messages', { type: 'stream', to, topic: 't', content });
    expect(res.status).toBe(200);
  }
});
afterAll(() => org.close());

describe('/export/realm', () => {
  it('is for administrators only', async () => {
    const res = await org.as(org.users.bob).post('/export/realm');
    expect(res.body).toEqual({
      result: 'error',
      msg: 'Must be an organization administrator',
      code: 'BAD_REQUEST',
    });
    expect(await org.t.db.realmExport.count()).toBe(0);
  });

  it('runs on the worker tier, tells admins by realm_export and serves the file', async () => {
    const { admin } = org.users;
    const { queue_id: queueId } = await org.register(admin, {
      event_types: JSON.stringify(['realm_export']),
    });
    const posted = await org.as(admin).post('/export/realm');
    expect(posted.status).toBe(200);
    const id = posted.body.id as number;
    const job = await org.t.db.jobOutbox.findFirstOrThrow({ where: { jobName: 'realm-export' } });
    expect(job.payload).toEqual({ exportId: id });

    const pending = await org.as(admin).get('/export/realm');
    expect(pending.body.exports).toEqual([
      expect.objectContaining({
        id,
        acting_user_id: admin.user.id,
        pending: true,
        export_url: null,
      }),
    ]);

    await runRealmExport(org.t, { exportId: id });
    const events = await org.eventsUntil(admin, queueId, (got) =>
      got.some(
        (e) => e.type === 'realm_export' && !(e.exports as { pending: boolean }[])[0].pending,
      ),
    );
    const last = events.filter((e) => e.type === 'realm_export').at(-1) as unknown as {
      exports: { export_url: string; pending: boolean; failed_timestamp: number | null }[];
    };
    expect(last.exports[0]).toMatchObject({ pending: false, failed_timestamp: null });
    const url = new URL(last.exports[0].export_url);
    expect(url.host).toBe(org.host);
    expect(url.pathname).toMatch(
      /^\/user_avatars\/exports\/\d+\/[\w-]{32}\/zulip-export-.*\.tar\.gz$/,
    );

    const file = await request(org.t.app)
      .get(url.pathname)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(file.status).toBe(200);
    const body = file.body as Buffer;
    expect(body.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    const { gunzipSync } = await import('node:zlib');
    const text = gunzipSync(body).toString('latin1');
    // The public export holds public channels' messages, not private ones.
    expect(text).toContain('public words');
    expect(text).not.toContain('private words');

    expect((await org.as(admin).delete(`/export/realm/${id}`)).body).toEqual({
      result: 'success',
      msg: '',
    });
    expect((await request(org.t.app).get(url.pathname)).status).toBe(404);
    expect((await org.as(admin).delete(`/export/realm/${id}`)).body.msg).toBe(
      'Export already deleted',
    );
    expect((await org.as(admin).delete('/export/realm/999999')).body.msg).toBe(
      'Invalid data export ID',
    );
    const row = await org.t.db.realmExport.findUniqueOrThrow({ where: { id } });
    expect(row.status).toBe(ExportStatus.DELETED);
  });
});
