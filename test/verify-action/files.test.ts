import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { organization, type Organization } from '../organization';
import { PNG_PIXEL } from '../upload-bodies';
import { ActionVerifier, expectCovered, ok } from '../verify-action';

type Org = Organization<'hamlet' | 'iago', 'Denmark'>;
let org: Org;
const uploads = mkdtempSync(path.join(tmpdir(), 'verify-action-uploads-'));

beforeAll(async () => {
  org = await organization({
    events: true,
    env: { UPLOADS_DIR: uploads },
    members: { hamlet: 'member', iago: 'administrator' },
    channels: { Denmark: ['hamlet', 'iago', 'owner'] },
  });
});
afterAll(async () => {
  await org.close();
  rmSync(uploads, { recursive: true, force: true });
});

jest.setTimeout(300_000);

const image = { filename: 'pixel.png', contentType: 'image/png' };

describe('verify_action: uploads, avatars, custom emoji and exports', () => {
  it('attachments: uploaded, linked from a message, deleted', async () => {
    const { hamlet, iago } = org.users;
    const v = new ActionVerifier(org, [hamlet, iago]);
    const uploaded = await v.step(() =>
      ok(
        org.as(hamlet).post('/user_uploads').attach('file', Buffer.from('the players'), {
          filename: 'notes.txt',
          contentType: 'text/plain',
        }),
      ),
    );
    await v.step(() =>
      ok(
        org.as(hamlet).post('/messages', {
          type: 'stream',
          to: org.channels.Denmark.id,
          topic: 'files',
          content: `[notes](${uploaded.url as string})`,
        }),
      ),
    );
    const attachment = await org.t.db.attachment.findFirstOrThrow({
      where: { ownerId: hamlet.user.id },
    });
    await v.step(() => ok(org.as(hamlet).delete(`/attachments/${attachment.id}`)));
    expectCovered(v, ['attachment:add', 'attachment:update', 'attachment:remove']);
  });

  it('avatars of a user and of a bot', async () => {
    const { hamlet, iago } = org.users;
    const v = new ActionVerifier(org, [hamlet, iago]);
    await v.step(() =>
      ok(org.as(hamlet).post('/users/me/avatar').attach('file', PNG_PIXEL, image)),
    );
    await v.step(() => ok(org.as(hamlet).delete('/users/me/avatar')));
    const created = await v.step(() =>
      ok(org.as(hamlet).post('/bots', { full_name: 'Ghost', short_name: 'ghost' })),
    );
    const bot = await org.t.db.user.findUniqueOrThrow({ where: { id: created.user_id as number } });
    const botAuth = `Basic ${Buffer.from(`${bot.email}:${created.api_key as string}`).toString('base64')}`;
    await v.step(() =>
      ok(org.as({ auth: botAuth }).post('/users/me/avatar').attach('file', PNG_PIXEL, image)),
    );
    expectCovered(v, ['realm_user:update:avatar_url', 'realm_bot:update:avatar_url']);
  });

  it('custom emoji added and removed', async () => {
    const { hamlet, iago } = org.users;
    const v = new ActionVerifier(org, [hamlet, iago]);
    await v.step(() =>
      ok(org.as(hamlet).post('/realm/emoji/yorick').attach('file', PNG_PIXEL, image)),
    );
    await v.step(() => ok(org.as(iago).delete('/realm/emoji/yorick')));
    expectCovered(v, ['realm_emoji:update']);
  });

  it('the organization icon uploaded and removed', async () => {
    const { hamlet, iago } = org.users;
    const v = new ActionVerifier(org, [hamlet, iago]);
    await v.step(() => ok(org.as(iago).post('/realm/icon').attach('file', PNG_PIXEL, image)));
    await v.step(() => ok(org.as(iago).delete('/realm/icon')));
    expectCovered(v, ['realm:update_dict']);
  });

  it('an export requested', async () => {
    const { hamlet, iago } = org.users;
    const v = new ActionVerifier(org, [hamlet, iago]);
    await v.step(() => ok(org.as(iago).post('/export/realm')));
    expectCovered(v, ['realm_export']);
  });
});
