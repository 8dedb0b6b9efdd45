/**
 * Writes a Zulip-format export (a directory) of one organization with MESSAGES messages (default
 * 1,000,000) for the import benchmark: `npx tsx bench/generate-import.ts DIR [MESSAGES]`, then
 * `npm run --silent cli -- import --from DIR --subdomain bench`. 50 users, 20 public channels
 * each with 5 subscribers, messages of a few words in 1,000-message files with one
 * user_message per subscriber. Written file by file, so its memory stays flat.
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

async function main() {
  const [dir, count = '1000000'] = process.argv.slice(2);
  if (!dir) throw new Error('usage: generate-import.ts DIR [MESSAGES]');
  const messages = Number(count);
  await mkdir(dir, { recursive: true });
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
