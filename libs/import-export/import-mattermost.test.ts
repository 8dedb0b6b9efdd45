import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { importTestBed } from '../../test/import-test-bed';
import {
  expectReadSearchableAndContinued,
  importedMessages,
  rows,
  uploadBytes,
  zipDirectory,
} from '../../test/imported-realm';
import { MATTERMOST_TOPIC } from './convert/mattermost';
import { importRealm } from './import-realm';

jest.setTimeout(180_000);

const FIXTURE = path.join(__dirname, '../../test/fixtures/import/mattermost');
const THREAD = '2024-05-22 Plan for the match?';
const bed = importTestBed(FIXTURE);
let imported: Awaited<ReturnType<typeof importRealm>>;

/** A copy of the fixture whose JSON Lines `edit` rewrites. */
function fixtureCopy(name: string, edit: (lines: string[]) => string[]) {
  return bed.copy(name, {
    file: 'export.jsonl',
    text: (text) => edit(text.trimEnd().split('\n')).join('\n') + '\n',
  });
}

beforeAll(async () => {
  const zip = zipDirectory(FIXTURE, path.join(bed.work, 'mattermost-export.zip'));
  imported = await importRealm(bed.t, { from: zip, subdomain: 'frommm', team: 'acme' });
});

describe('import from Mattermost', () => {
  it('detects the format and sums up what came in', () => {
    expect(imported).toMatchObject({
      format: 'mattermost',
      users: 6,
      channels: 3,
      messages: 9,
      reactions: 3,
      uploads: 1,
      emoji: 1,
      missingCount: 0,
      filesNotFetched: [],
    });
    expect(imported.ignoredFields).toEqual({});
  });

  it("takes one team's users with their roles; deleted users inactive; unknown authors mirrored", async () => {
    const users = await rows(
      bed.t,
      imported.realmId,
      `SELECT email, full_name, role, is_active, is_mirror_dummy FROM users WHERE realm_id = $1 ORDER BY email`,
    );
    expect(users).toEqual([
      {
        email: 'hagrid@mattermost.invalid',
        full_name: 'hagrid',
        role: 400,
        is_active: false,
        is_mirror_dummy: true,
      },
      {
        email: 'harry@example.com',
        full_name: 'Harry Potter',
        role: 100,
        is_active: true,
        is_mirror_dummy: false,
      },
      {
        email: 'hermione@example.com',
        full_name: 'Hermione Granger',
        role: 400,
        is_active: true,
        is_mirror_dummy: false,
      },
      {
        email: 'luna@example.com',
        full_name: 'Luna Lovegood',
        role: 600,
        is_active: true,
        is_mirror_dummy: false,
      },
      {
        email: 'ron@example.com',
        full_name: 'Ron Weasley',
        role: 200,
        is_active: true,
        is_mirror_dummy: false,
      },
      {
        email: 'snape@example.com',
        full_name: 'Severus Snape',
        role: 400,
        is_active: false,
        is_mirror_dummy: false,
      },
    ]);
  });

  it("keeps a user's position as a profile field", async () => {
    const values = await rows(
      bed.t,
      imported.realmId,
      `SELECT u.email, f.name, v.value FROM custom_profile_field_values v
         JOIN custom_profile_fields f ON f.id = v.field_id JOIN users u ON u.id = v.user_id
        WHERE f.realm_id = $1`,
    );
    expect(values).toEqual([{ email: 'ron@example.com', name: 'Position', value: 'Keeper' }]);
  });

  it('keeps public, private and archived channels with their members', async () => {
    const channels = await rows(
      bed.t,
      imported.realmId,
      `SELECT s.name, s.description, s.invite_only, s.is_archived,
         (SELECT json_agg(u.email ORDER BY u.email) FROM subscriptions sub JOIN users u ON u.id = sub.user_id
           WHERE sub.recipient_id = s.recipient_id) AS subscribers
       FROM streams s WHERE s.realm_id = $1 ORDER BY s.name`,
    );
    expect(channels).toEqual([
      {
        name: 'Old',
        description: 'Old header',
        invite_only: false,
        is_archived: true,
        subscribers: ['harry@example.com'],
      },
      {
        name: 'Secret',
        description: 'Hush',
        invite_only: true,
        is_archived: false,
        subscribers: ['harry@example.com', 'hermione@example.com', 'ron@example.com'],
      },
      {
        name: 'Town Square',
        description: 'Everyone',
        invite_only: false,
        is_archived: false,
        subscribers: [
          'harry@example.com',
          'hermione@example.com',
          'luna@example.com',
          'ron@example.com',
          'snape@example.com',
        ],
      },
    ]);
  });

  it('makes a post with replies a topic; converts mentions; keeps stars', async () => {
    const messages = await importedMessages(bed.t, imported.realmId);
    expect(
      messages.map((m) => [m.sender, m.recipient_type, m.recipient, m.topic, m.content]),
    ).toEqual([
      [
        'harry@example.com',
        2,
        'Town Square',
        MATTERMOST_TOPIC,
        'Welcome @**Ron Weasley** and @**all**, **glad** you came',
      ],
      [
        'ron@example.com',
        2,
        'Town Square',
        THREAD,
        expect.stringMatching(
          /^Plan for the match\?\n\[plan\.txt\]\(\/user_uploads\/\d+\/\w+\/plan\.txt\)$/,
        ),
      ],
      ['hermione@example.com', 2, 'Town Square', THREAD, 'Agreed, @**Harry Potter**'],
      ['harry@example.com', 2, 'Town Square', THREAD, 'We fly at dawn'],
      ['hermione@example.com', 2, 'Secret', MATTERMOST_TOPIC, 'The secret plan'],
      [
        'hagrid@mattermost.invalid',
        2,
        'Town Square',
        MATTERMOST_TOPIC,
        "I shouldn't have said that",
      ],
      ['snape@example.com', 2, 'Old', MATTERMOST_TOPIC, 'Turn to page 394'],
      [
        'harry@example.com',
        3,
        'harry@example.com,hermione@example.com,ron@example.com',
        '',
        'Three of us',
      ],
      ['ron@example.com', 1, 'harry@example.com', '', 'psst'],
    ]);
    // Ron: read, starred (flagged), mentioned by name and by @all.
    expect(messages[0].flags).toMatchObject({
      'ron@example.com': 1 | 2 | 8 | 16,
      'luna@example.com': 17,
    });
  });

  it('brings reactions, Unicode and custom', async () => {
    const reactions = await rows(
      bed.t,
      imported.realmId,
      `SELECT u.email, r.emoji_code, r.reaction_type,
         (SELECT e.name FROM realm_emoji e WHERE r.reaction_type = 'realm_emoji' AND e.id::text = r.emoji_code) AS custom
       FROM reactions r JOIN users u ON u.id = r.user_id JOIN messages m ON m.id = r.message_id
       WHERE m.realm_id = $1 ORDER BY r.id`,
    );
    expect(reactions).toEqual([
      {
        email: 'hermione@example.com',
        emoji_code: '1f44d',
        reaction_type: 'unicode_emoji',
        custom: null,
      },
      {
        email: 'ron@example.com',
        emoji_code: expect.stringMatching(/^\d+$/) as unknown,
        reaction_type: 'realm_emoji',
        custom: 'snitch',
      },
      {
        email: 'ron@example.com',
        emoji_code: '1f604',
        reaction_type: 'unicode_emoji',
        custom: null,
      },
    ]);
  });

  it('takes attachments and emoji images from data/', async () => {
    expect((await uploadBytes(bed.t, imported.realmId, 'plan.txt'))?.bytes).toBe('Seeker: Harry\n');
    const [emoji] = await rows(
      bed.t,
      imported.realmId,
      'SELECT name FROM realm_emoji WHERE realm_id = $1',
    );
    expect(emoji.name).toBe('snitch');
  });

  it('marks the messages read; search finds them; new messages come after them', async () => {
    await expectReadSearchableAndContinued(bed.t, imported.realmId, {
      email: 'hermione@example.com',
      channel: 'Town Square',
      word: 'dawn',
    });
  });
});

describe('Mattermost bad input', () => {
  it('asks for --team when the export holds several', async () => {
    await expect(importRealm(bed.t, { from: FIXTURE, subdomain: 'teams' })).rejects.toThrow(
      'export.jsonl: holds 2 teams (acme, other): choose one with --team',
    );
  });

  it('names the line of malformed JSON and leaves nothing', async () => {
    const dir = await fixtureCopy('malformed', (lines) => {
      lines[8] = lines[8].slice(0, -2);
      return lines;
    });
    const realms = await bed.t.db.realm.count();
    await expect(
      importRealm(bed.t, { from: dir, subdomain: 'malformed', team: 'acme' }),
    ).rejects.toThrow(/^export\.jsonl, line 9: malformed JSON/);
    expect(await bed.t.db.realm.count()).toBe(realms);
  });

  it('counts unknown fields', async () => {
    const dir = await fixtureCopy('unknown', (lines) =>
      lines.map((l) =>
        l.includes('"username": "luna"')
          ? l.replace('"username"', '"hat": "sorting", "username"')
          : l,
      ),
    );
    const summary = await importRealm(bed.t, { from: dir, subdomain: 'unknown', team: 'acme' });
    expect(summary.ignoredFields).toEqual({ 'user.hat': 1 });
  });

  it('reports a post in a channel the export lacks; stops, or goes on if asked', async () => {
    const lost = JSON.stringify({
      type: 'post',
      post: {
        team: 'acme',
        channel: 'nowhere',
        user: 'harry',
        message: 'lost',
        create_at: 1716372000000,
      },
    });
    const dir = await fixtureCopy('missing', (lines) => [...lines, lost]);
    const line = (await readFile(path.join(dir, 'export.jsonl'), 'utf8'))
      .trimEnd()
      .split('\n').length;
    await expect(
      importRealm(bed.t, { from: dir, subdomain: 'missing', team: 'acme' }),
    ).rejects.toThrow(`export.jsonl, line ${line}: channel nowhere is not in the export`);
    const summary = await importRealm(bed.t, {
      from: dir,
      subdomain: 'missing',
      team: 'acme',
      onMissing: 'skip',
    });
    expect(summary).toMatchObject({ messages: 9, missingCount: 1 });
  });
});
