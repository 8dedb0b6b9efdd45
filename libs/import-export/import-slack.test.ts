import { mkdir, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { startTestContext } from '../../test/harness';
import { editJson, importTestBed } from '../../test/import-test-bed';
import {
  expectReadSearchableAndContinued,
  importedMessages,
  rows,
  uploadBytes,
  zipDirectory,
} from '../../test/imported-realm';
import { SLACK_TOPIC } from './convert/slack';
import { importRealm } from './import-realm';

jest.setTimeout(180_000);

const bed = importTestBed(path.join(__dirname, '../../test/fixtures/import/slack'));
let server: http.Server;
let zip: string;
let imported: Awaited<ReturnType<typeof importRealm>>;

type Json = Record<string, unknown>[];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/notes.txt') res.end('my own notes\n');
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  // The notes are not in the zip: they are fetched from this server, if the egress policy lets.
  const dir = await bed.copy('zip', {
    file: 'general/2024-05-22.json',
    text: editJson<Json>((messages) => {
      const file = (messages.find((m) => m.text === 'My notes')?.files as Json)[0];
      file.url_private_download = `http://127.0.0.1:${port}/notes.txt`;
    }),
  });
  zip = zipDirectory(dir, path.join(bed.work, 'slack-export.zip'));
  imported = await importRealm(bed.t, { from: zip, subdomain: 'fromslack' });
});

afterAll(() => {
  server.close();
});

describe('import from Slack', () => {
  it('detects the format and sums up what came in', () => {
    expect(imported).toMatchObject({
      format: 'slack',
      users: 7,
      channels: 3,
      messages: 14,
      reactions: 4,
      uploads: 1,
      emoji: 1,
      missingCount: 0,
      filesFetched: 0,
      unknownEmoji: { shipit: 1 },
    });
    expect(imported.ignoredFields).toEqual({});
    expect(imported.filesNotFetched).toEqual([
      expect.stringMatching(/notes\.txt: the egress policy refuses 127\.0\.0\.1/),
    ]);
  });

  it('keeps roles; brings bots and deleted users; makes mirror accounts of unknown authors', async () => {
    const users = await rows(
      bed.t,
      imported.realmId,
      `SELECT email, full_name, role, is_active, is_bot, is_mirror_dummy, timezone
         FROM users WHERE realm_id = $1 ORDER BY email`,
    );
    expect(users).toEqual([
      {
        email: 'alice@example.com',
        full_name: 'Alice Owner',
        role: 100,
        is_active: true,
        is_bot: false,
        is_mirror_dummy: false,
        timezone: 'Europe/Paris',
      },
      {
        email: 'bob@example.com',
        full_name: 'Bob Admin',
        role: 200,
        is_active: true,
        is_bot: false,
        is_mirror_dummy: false,
        timezone: 'Europe/Paris',
      },
      {
        email: 'carol@example.com',
        full_name: 'Carol Guest',
        role: 600,
        is_active: true,
        is_bot: false,
        is_mirror_dummy: false,
        timezone: 'Europe/Paris',
      },
      {
        email: 'dave@example.com',
        full_name: 'Dave Member',
        role: 400,
        is_active: true,
        is_bot: false,
        is_mirror_dummy: false,
        timezone: 'Europe/Paris',
      },
      {
        email: 'gone@example.com',
        full_name: 'Gone User',
        role: 400,
        is_active: false,
        is_bot: false,
        is_mirror_dummy: false,
        timezone: 'Europe/Paris',
      },
      {
        email: 'u06bot@slack.invalid',
        full_name: 'Deploy Bot',
        role: 400,
        is_active: true,
        is_bot: true,
        is_mirror_dummy: false,
        timezone: 'Europe/Paris',
      },
      {
        email: 'u09ghost@slack.invalid',
        full_name: 'Ghost Writer',
        role: 400,
        is_active: false,
        is_bot: false,
        is_mirror_dummy: true,
        timezone: '',
      },
    ]);
    const owners = await rows(
      bed.t,
      imported.realmId,
      `SELECT u.email FROM user_group_memberships m JOIN user_groups g ON g.id = m.user_group_id
         JOIN users u ON u.id = m.user_id WHERE g.realm_id = $1 AND g.name = 'role:owners'`,
    );
    expect(owners).toEqual([{ email: 'alice@example.com' }]);
  });

  it("brings profile fields: phone numbers and the workspace's own fields", async () => {
    const values = await rows(
      bed.t,
      imported.realmId,
      `SELECT u.email, f.name, f.type, v.value FROM custom_profile_field_values v
         JOIN custom_profile_fields f ON f.id = v.field_id JOIN users u ON u.id = v.user_id
        WHERE f.realm_id = $1 ORDER BY u.email`,
    );
    expect(values).toEqual([
      { email: 'alice@example.com', name: 'Phone number', type: 1, value: '+33 1 23 45 67 89' },
      { email: 'dave@example.com', name: 'Xf01TEAM', type: 1, value: 'Platform' },
    ]);
  });

  it('keeps public, private and archived channels, their members and the default channel', async () => {
    const channels = await rows(
      bed.t,
      imported.realmId,
      `SELECT s.name, s.description, s.invite_only, s.is_archived,
         (SELECT json_agg(u.email ORDER BY u.email) FROM subscriptions sub JOIN users u ON u.id = sub.user_id
           WHERE sub.recipient_id = s.recipient_id) AS subscribers,
         EXISTS (SELECT 1 FROM default_streams d WHERE d.stream_id = s.id) AS is_default
       FROM streams s WHERE s.realm_id = $1 ORDER BY s.name`,
    );
    expect(channels).toEqual([
      {
        name: 'general',
        description: 'Company-wide announcements',
        invite_only: false,
        is_archived: false,
        subscribers: [
          'alice@example.com',
          'bob@example.com',
          'carol@example.com',
          'dave@example.com',
        ],
        is_default: true,
      },
      {
        name: 'random',
        description: 'Off-topic',
        invite_only: false,
        is_archived: true,
        subscribers: ['alice@example.com', 'bob@example.com'],
        is_default: false,
      },
      {
        name: 'secret',
        description: 'Leadership only',
        invite_only: true,
        is_archived: false,
        subscribers: ['alice@example.com', 'bob@example.com'],
        is_default: false,
      },
    ]);
  });

  it('converts mrkdwn, makes threads topics (a broadcast reply included) and drops join notices', async () => {
    const messages = await importedMessages(bed.t, imported.realmId);
    const general = messages.filter((m) => m.recipient === 'general');
    expect(general.map((m) => [m.sender, m.topic, m.content])).toEqual([
      [
        'alice@example.com',
        SLACK_TOPIC,
        'Hello @**all**, welcome to **Acme** *today* ~~never~~ see ' +
          '[our site](https://example.com/a?b=1&c=2) and #**random**',
      ],
      [
        'bob@example.com',
        '2024-05-22 Shall we ship it, @**Alice Owner**?',
        'Shall we ship it, @**Alice Owner**?',
      ],
      [
        'alice@example.com',
        '2024-05-22 Shall we ship it, @**Alice Owner**?',
        'Yes, `ship *it*` now',
      ],
      ['dave@example.com', '2024-05-22 Shall we ship it, @**Alice Owner**?', 'Shipped!'],
      ['gone@example.com', SLACK_TOPIC, 'Bye all, it was fun'],
      ['u09ghost@slack.invalid', SLACK_TOPIC, 'Hello from an account Slack no longer lists'],
      ['u06bot@slack.invalid', SLACK_TOPIC, 'Deploy **finished**'],
      [
        'dave@example.com',
        SLACK_TOPIC,
        expect.stringMatching(/^The plan\n\[plan\.txt\]\(\/user_uploads\/\d+\/\w+\/plan\.txt\)$/),
      ],
      [
        'carol@example.com',
        SLACK_TOPIC,
        expect.stringMatching(/^My notes\n\[Notes\]\(http:\/\/127\.0\.0\.1:\d+\/notes\.txt\)$/),
      ],
    ]);

    // Rendered HTML names the new organization's users and channels.
    const [alice] = await rows(
      bed.t,
      imported.realmId,
      `SELECT id FROM users WHERE realm_id = $1 AND email = 'alice@example.com'`,
    );
    const [random] = await rows(
      bed.t,
      imported.realmId,
      `SELECT id FROM streams WHERE realm_id = $1 AND name = 'random'`,
    );
    expect(general[0].rendered_content).toContain(`data-stream-id="${String(random.id)}"`);
    expect(general[1].rendered_content).toContain(`data-user-id="${String(alice.id)}"`);
    // Read, and a mention for the one mentioned.
    expect(general[1].flags).toMatchObject({ 'alice@example.com': 9, 'bob@example.com': 1 });
    expect(general[0].flags).toMatchObject({ 'dave@example.com': 17 });
  });

  it('brings direct and group direct messages', async () => {
    const messages = await importedMessages(bed.t, imported.realmId);
    const direct = messages
      .filter((m) => m.recipient_type !== 2)
      .map((m) => [
        m.sender,
        m.recipient_type,
        m.recipient,
        m.content,
        Object.keys(m.flags as object).sort(),
      ]);
    expect(direct).toEqual([
      ['alice@example.com', 1, 'bob@example.com', 'psst', ['alice@example.com', 'bob@example.com']],
      [
        'bob@example.com',
        1,
        'alice@example.com',
        'what?',
        ['alice@example.com', 'bob@example.com'],
      ],
      [
        'dave@example.com',
        3,
        'alice@example.com,bob@example.com,dave@example.com',
        'Three of us',
        ['alice@example.com', 'bob@example.com', 'dave@example.com'],
      ],
    ]);
    expect(messages.filter((m) => m.recipient === 'secret').map((m) => m.content)).toEqual([
      'The secret plan',
    ]);
  });

  it('brings reactions, Unicode (skin tones merged) and custom (aliases too)', async () => {
    const reactions = await rows(
      bed.t,
      imported.realmId,
      `SELECT u.email, r.emoji_name, r.emoji_code, r.reaction_type,
         (SELECT e.name FROM realm_emoji e WHERE r.reaction_type = 'realm_emoji' AND e.id::text = r.emoji_code) AS custom
       FROM reactions r JOIN users u ON u.id = r.user_id JOIN messages m ON m.id = r.message_id
       WHERE m.realm_id = $1 ORDER BY u.email, r.emoji_name`,
    );
    expect(reactions).toEqual([
      {
        email: 'bob@example.com',
        emoji_name: '+1',
        emoji_code: '1f44d',
        reaction_type: 'unicode_emoji',
        custom: null,
      },
      {
        email: 'bob@example.com',
        emoji_name: 'partyparrot',
        emoji_code: expect.stringMatching(/^\d+$/) as unknown,
        reaction_type: 'realm_emoji',
        custom: 'partyparrot',
      },
      {
        email: 'dave@example.com',
        emoji_name: '+1',
        emoji_code: '1f44d',
        reaction_type: 'unicode_emoji',
        custom: null,
      },
      {
        email: 'dave@example.com',
        emoji_name: 'partyparrot',
        emoji_code: expect.stringMatching(/^\d+$/) as unknown,
        reaction_type: 'realm_emoji',
        custom: 'partyparrot',
      },
    ]);
  });

  it('takes files from the zip, with the link in the message', async () => {
    const plan = await uploadBytes(bed.t, imported.realmId, 'plan.txt');
    expect(plan?.bytes).toBe('1. ship\n2. celebrate\n');
    const [message] = await rows(
      bed.t,
      imported.realmId,
      `SELECT m.content, m.has_attachment, (SELECT count(*)::int FROM attachment_messages am
          JOIN attachments a ON a.id = am.attachment_id WHERE am.message_id = m.id) AS linked
        FROM messages m WHERE m.realm_id = $1 AND m.content LIKE 'The plan%'`,
    );
    expect(message).toMatchObject({ has_attachment: true, linked: 1 });
    expect(message.content).toContain(`/user_uploads/${plan?.pathId as string})`);
  });

  it('marks the messages read; search finds them; new messages come after them', async () => {
    await expectReadSearchableAndContinued(bed.t, imported.realmId, {
      email: 'bob@example.com',
      channel: 'general',
      word: 'finished',
    });
  });

  it('fetches files through the egress policy when it allows the host', async () => {
    const allowed = await startTestContext({ OUTGOING_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
    try {
      const again = await importRealm(allowed, { from: zip, subdomain: 'fromslack' });
      expect(again).toMatchObject({ filesFetched: 1, uploads: 2, filesNotFetched: [] });
      expect((await uploadBytes(allowed, again.realmId, 'notes.txt'))?.bytes).toBe(
        'my own notes\n',
      );
    } finally {
      await allowed.close();
    }
  });
});

describe('Slack bad input', () => {
  it('names the file and record of malformed JSON; nothing is left; the run can be repeated', async () => {
    const dir = await bed.copy('malformed');
    const file = path.join(dir, 'general/2024-05-22.json');
    const good = await readFile(file, 'utf8');
    await writeFile(file, good.replace('"Bye all, it was fun"', '"Bye all, it was fun'));
    const realms = await bed.t.db.realm.count();
    await expect(importRealm(bed.t, { from: dir, subdomain: 'malformed' })).rejects.toThrow(
      /^general\/2024-05-22\.json, \[\d+\]: malformed JSON/,
    );
    expect(await bed.t.db.realm.count()).toBe(realms);
    await writeFile(file, good);
    expect((await importRealm(bed.t, { from: dir, subdomain: 'malformed' })).messages).toBe(14);
    await expect(importRealm(bed.t, { from: dir, subdomain: 'malformed' })).rejects.toThrow(
      "--subdomain: an organization 'malformed' already exists",
    );
  });

  it('counts unknown fields', async () => {
    const dir = await bed.copy('unknown', {
      file: 'users.json',
      text: editJson<Json>((users) => {
        users[0].future_field = true;
      }),
    });
    const file = path.join(dir, 'random/2024-05-21.json');
    const messages = JSON.parse(await readFile(file, 'utf8')) as Json;
    messages[0].sparkle = 1;
    await writeFile(file, JSON.stringify(messages));
    const summary = await importRealm(bed.t, { from: dir, subdomain: 'unknown', format: 'slack' });
    expect(summary.ignoredFields).toEqual({ 'users.json.future_field': 1, 'messages.sparkle': 1 });
  });

  it('reports a conversation and a reacting user the export lacks; stops, or goes on if asked', async () => {
    const dir = await bed.copy('missing', {
      file: 'general/2024-05-22.json',
      text: editJson<Json>((messages) => {
        (messages[0].reactions as Json).push({ name: 'tada', users: ['U77NOBODY'], count: 1 });
      }),
    });
    await mkdir(path.join(dir, 'nowhere'));
    await writeFile(
      path.join(dir, 'nowhere/2024-05-22.json'),
      JSON.stringify([
        { type: 'message', user: 'U01ALICE', text: 'lost', ts: '1716372000.000000' },
      ]),
    );
    const realms = await bed.t.db.realm.count();
    await expect(importRealm(bed.t, { from: dir, subdomain: 'missing' })).rejects.toThrow(
      'nowhere/2024-05-22.json, nowhere: a conversation that channels.json, groups.json, dms.json and mpims.json lack',
    );
    expect(await bed.t.db.realm.count()).toBe(realms);
    const summary = await importRealm(bed.t, {
      from: dir,
      subdomain: 'missing',
      onMissing: 'skip',
    });
    expect(summary).toMatchObject({ messages: 14, reactions: 4, missingCount: 2 });
    expect(summary.missing).toEqual([
      expect.objectContaining({ file: 'nowhere/2024-05-22.json' }),
      {
        file: 'general/2024-05-22.json',
        record: '[0]',
        reason: 'reaction by U77NOBODY, who is not in users.json',
      },
    ]);
  });
});
