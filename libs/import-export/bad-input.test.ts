import path from 'node:path';
import { editJson, importTestBed } from '../../test/import-test-bed';
import { rows } from '../../test/imported-realm';
import { avatarKeys } from '../domain/users/set-avatar';
import { uploadStore } from '../storage/upload-store';
import { importRealm } from './import-realm';

jest.setTimeout(120_000);

const FIXTURE = path.join(__dirname, '../../test/fixtures/import/zulip-small');
const bed = importTestBed(FIXTURE);

/** A copy of the fixture with its first messages file changed by `edit`. */
function withMessages(
  name: string,
  edit: (data: { zerver_message: Record<string, unknown>[] }) => void,
) {
  return bed.copy(name, { file: 'messages-000001.json', text: editJson(edit) });
}

describe('bad input', () => {
  it('ignores unknown fields and counts them', async () => {
    const dir = await withMessages('unknown', (d) => {
      for (const m of d.zerver_message) m.future_field = 1;
    });
    const summary = await importRealm(bed.t, { from: dir, subdomain: 'unknown' });
    expect(summary.messages).toBe(3);
    expect(summary.ignoredFields).toEqual({ 'zerver_message.future_field': 3 });
  });

  it('stops on a message from a missing user, naming file and record; goes on if asked', async () => {
    const dir = await withMessages('missing', (d) => {
      d.zerver_message[1].sender = 999;
    });
    const realms = await bed.t.db.realm.count();
    await expect(importRealm(bed.t, { from: dir, subdomain: 'missing' })).rejects.toThrow(
      'messages-000001.json, zerver_message[1]: sender names a missing zerver_userprofile 999',
    );
    expect(await bed.t.db.realm.count()).toBe(realms);
    const summary = await importRealm(bed.t, {
      from: dir,
      subdomain: 'missing',
      onMissing: 'skip',
    });
    expect(summary).toMatchObject({ messages: 2, missingCount: 1 });
    expect(summary.missing[0]).toMatchObject({
      file: 'messages-000001.json',
      record: 'zerver_message[1]',
    });
  });

  it('names the record of a value of the wrong type', async () => {
    const dir = await withMessages('types', (d) => {
      d.zerver_message[2].date_sent = 'yesterday';
    });
    await expect(importRealm(bed.t, { from: dir, subdomain: 'types' })).rejects.toThrow(
      'messages-000001.json, zerver_message[2]: date_sent is not timestamp: "yesterday"',
    );
  });
});

describe('the Zulip fixture', () => {
  it('brings its custom emoji, an avatar and a reaction with the emoji, renumbered', async () => {
    const summary = await importRealm(bed.t, { from: FIXTURE, subdomain: 'fixture' });
    expect(summary).toMatchObject({ emoji: 1, avatars: 2, reactions: 1, missingCount: 0 });
    const [reaction] = await rows(
      bed.t,
      summary.realmId,
      `SELECT e.name, r.reaction_type FROM reactions r JOIN messages m ON m.id = r.message_id
         JOIN realm_emoji e ON e.id::text = r.emoji_code AND e.realm_id = m.realm_id
        WHERE m.realm_id = $1`,
    );
    expect(reaction).toEqual({ name: 'party', reaction_type: 'realm_emoji' });
    const [user] = await rows(
      bed.t,
      summary.realmId,
      `SELECT id, avatar_source FROM users WHERE realm_id = $1 AND email = 'user1@bench.example'`,
    );
    expect(user.avatar_source).toBe('U');
    const keys = avatarKeys({ id: user.id as number, realmId: summary.realmId });
    expect(await uploadStore(bed.t.config).exists(keys.medium)).toBe(true);
  });
});
