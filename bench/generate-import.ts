/**
 * Writes an export of one organization with MESSAGES messages (default 1,000,000) for the import
 * benchmark: `npx tsx bench/generate-import.ts DIR [MESSAGES] [zulip|slack]`, then
 * `npm run --silent cli -- import --from DIR --subdomain bench`. 50 users, 20 public channels
 * each with 5 subscribers, messages of a few words. `zulip` (the default): Zulip's format,
 * 1,000-message files with one user_message per subscriber. `slack`: Slack's export layout,
 * a file per channel per day of 500 messages, every tenth message opening a thread of 3
 * replies, with mentions, links and bold text to convert. Written file by file, so its memory
 * stays flat.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

const USERS = 50;
const CHANNELS = 20;
const PER_CHANNEL = 5;
const PER_FILE = 1000;
const REALM = 1;
const GROUPS = [
  'role:owners',
  'role:administrators',
  'role:moderators',
  'role:fullmembers',
  'role:members',
  'role:everyone',
  'role:internet',
  'role:nobody',
];
const group = (name: string) => GROUPS.indexOf(name) + 1;
const WORDS = 'alpha beta gamma delta launch plan review ship deploy merge test note'.split(' ');

const SLACK_PER_FILE = 500;
const slackUser = (i: number) => `U${String(i + 1).padStart(8, '0')}`;

/** Slack's layout: users.json, channels.json and `<channel>/<YYYY-MM-DD>.json` files. */
async function writeSlack(dir: string, messages: number) {
  const created = 1_600_000_000;
  await writeFile(
    path.join(dir, 'users.json'),
    JSON.stringify(
      Array.from({ length: USERS }, (_, i) => ({
        id: slackUser(i),
        name: `user${i + 1}`,
        real_name: `User ${i + 1}`,
        deleted: false,
        is_admin: i === 1,
        is_owner: i === 0,
        profile: { real_name: `User ${i + 1}`, email: `user${i + 1}@bench.example` },
      })),
    ),
  );
  const members = (channel: number) =>
    Array.from({ length: PER_CHANNEL }, (_, k) => slackUser((channel * 7 + k * 11) % USERS));
  await writeFile(
    path.join(dir, 'channels.json'),
    JSON.stringify(
      Array.from({ length: CHANNELS }, (_, c) => ({
        id: `C${String(c + 1).padStart(8, '0')}`,
        name: `channel-${c + 1}`,
        created,
        is_archived: false,
        is_general: c === 0,
        members: members(c),
        purpose: { value: `Channel ${c + 1}` },
      })),
    ),
  );
  for (const name of ['groups.json', 'dms.json', 'mpims.json']) {
    await writeFile(path.join(dir, name), '[]');
  }
  let written = 0;
  for (let day = 0; written < messages; day++) {
    const date = new Date((created + day * 86400) * 1000).toISOString().slice(0, 10);
    for (let c = 0; c < CHANNELS && written < messages; c++) {
      const folder = path.join(dir, `channel-${c + 1}`);
      await mkdir(folder, { recursive: true });
      const subs = members(c);
      const batch = [];
      let thread = '';
      for (let i = 0; i < SLACK_PER_FILE && written < messages; i++) {
        written += 1;
        const ts = `${created + day * 86400 + c * 3000 + i * 5}.${String(i).padStart(6, '0')}`;
        const words = Array.from(
          { length: 8 },
          (_, k) => WORDS[(written * 31 + k * 7) % WORDS.length],
        );
        const message: Record<string, unknown> = {
          type: 'message',
          user: subs[written % PER_CHANNEL],
          text: `${words.join(' ')} *#${written}* <@${subs[(written + 1) % PER_CHANNEL]}> <https://example.com/${written}|link>`,
          ts,
        };
        if (i % 10 === 0) thread = ts;
        if (i % 10 === 0 && i + 3 < SLACK_PER_FILE) message.thread_ts = ts;
        else if (i % 10 <= 3) {
          message.thread_ts = thread;
          message.parent_user_id = subs[(written - (i % 10)) % PER_CHANNEL];
        }
        batch.push(message);
      }
      await writeFile(path.join(folder, `${date}.json`), JSON.stringify(batch));
    }
  }
  process.stdout.write(`${written} messages in Slack's layout in ${dir}\n`);
}

async function main() {
  const [dir, count = '1000000', format = 'zulip'] = process.argv.slice(2);
  if (!dir) throw new Error('usage: generate-import.ts DIR [MESSAGES] [zulip|slack]');
  const messages = Number(count);
  await mkdir(dir, { recursive: true });
  if (format === 'slack') return writeSlack(dir, messages);
  const now = Date.now() / 1000;
  const users = Array.from({ length: USERS }, (_, i) => ({
    id: i + 1,
    realm: REALM,
    email: `user${i + 1}@bench.example`,
    delivery_email: `user${i + 1}@bench.example`,
    full_name: `User ${i + 1}`,
    role: i === 0 ? 100 : 400,
    is_bot: false,
    is_active: true,
    date_joined: now - 86400 * 365,
    recipient: i + 1,
  }));
  const streams = Array.from({ length: CHANNELS }, (_, i) => ({
    id: i + 1,
    realm: REALM,
    name: `channel-${i + 1}`,
    description: '',
    rendered_description: '',
    invite_only: false,
    date_created: now - 86400 * 365,
    recipient: USERS + i + 1,
    can_add_subscribers_group: group('role:members'),
    can_administer_channel_group: group('role:nobody'),
    can_remove_subscribers_group: group('role:administrators'),
    can_send_message_group: group('role:everyone'),
    can_subscribe_group: group('role:nobody'),
  }));
  const recipients = [
    ...users.map((u) => ({ id: u.recipient, type: 1, type_id: u.id })),
    ...streams.map((s) => ({ id: s.recipient, type: 2, type_id: s.id })),
  ];
  const members = (channel: number) =>
    Array.from({ length: PER_CHANNEL }, (_, k) => ((channel * 7 + k * 11) % USERS) + 1);
  const subscriptions = streams.flatMap((s, i) =>
    members(i).map((user, k) => ({
      id: i * PER_CHANNEL + k + 1,
      user_profile: user,
      recipient: s.recipient,
      active: true,
      color: '#c2c2c2',
    })),
  );
  const realmGroups = Object.fromEntries(
    [
      'can_access_all_users_group',
      'can_add_custom_emoji_group',
      'can_add_subscribers_group',
      'can_create_bots_group',
      'can_create_groups',
      'can_create_private_channel_group',
      'can_create_public_channel_group',
      'can_create_web_public_channel_group',
      'can_create_write_only_bots_group',
      'can_delete_any_message_group',
      'can_delete_own_message_group',
      'can_invite_users_group',
      'can_manage_all_groups',
      'can_manage_billing_group',
      'can_mention_many_users_group',
      'can_move_messages_between_channels_group',
      'can_move_messages_between_topics_group',
      'can_resolve_topics_group',
      'can_set_delete_message_policy_group',
      'can_set_topics_policy_group',
      'can_summarize_topics_group',
      'create_multiuse_invite_group',
      'direct_message_initiator_group',
      'direct_message_permission_group',
    ].map((k) => [k, group('role:members')]),
  );
  const realm = {
    zerver_realm: [{ id: REALM, string_id: 'bench', name: 'Bench', ...realmGroups }],
    zerver_userprofile: users,
    zerver_recipient: recipients,
    zerver_stream: streams,
    zerver_subscription: subscriptions,
    zerver_usergroup: GROUPS.map((name, i) => ({ id: i + 1, realm: REALM })),
    zerver_namedusergroup: GROUPS.map((name, i) => ({
      usergroup_ptr: i + 1,
      realm_for_sharding: REALM,
      name,
      description: name,
      is_system_group: true,
    })),
    zerver_usergroupmembership: users.map((u) => ({
      user_group: u.role === 100 ? group('role:owners') : group('role:members'),
      user_profile: u.id,
    })),
    zerver_client: [{ id: 1, name: 'website' }],
  };
  await writeFile(path.join(dir, 'realm.json'), JSON.stringify(realm));
  let id = 0;
  let um = 0;
  for (let file = 1; id < messages; file++) {
    const batch = [];
    const userMessages = [];
    for (let i = 0; i < PER_FILE && id < messages; i++) {
      id += 1;
      const channel = id % CHANNELS;
      const subs = members(channel);
      const words = Array.from({ length: 8 }, (_, k) => WORDS[(id * 31 + k * 7) % WORDS.length]);
      const content = `${words.join(' ')} #${id}`;
      batch.push({
        id,
        realm: REALM,
        sender: subs[id % PER_CHANNEL],
        recipient: streams[channel].recipient,
        subject: `topic ${id % 50}`,
        content,
        rendered_content: `<p>${content}</p>`,
        rendered_content_version: 1,
        date_sent: now - (messages - id),
        sending_client: 1,
        has_attachment: false,
        has_image: false,
        has_link: false,
      });
      for (const user of subs.slice(0, 2)) {
        um += 1;
        userMessages.push({ id: um, user_profile: user, message: id, flags_mask: 1 });
      }
    }
    await writeFile(
      path.join(dir, `messages-${String(file).padStart(6, '0')}.json`),
      JSON.stringify({ zerver_message: batch, zerver_usermessage: userMessages }),
    );
  }
  await mkdir(path.join(dir, 'uploads'), { recursive: true });
  await writeFile(path.join(dir, 'uploads', 'records.json'), '[]');
  process.stdout.write(`${id} messages, ${um} user_messages in ${dir}\n`);
}

void main();
