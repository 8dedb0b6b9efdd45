import type { AppContext } from '../libs/core/context';
import { sqlPool } from '../libs/db/sql';
import { decryptApiKey } from '../libs/domain/users/api-keys';
import { attachmentKey } from '../libs/domain/attachments/storage';
import { avatarKeys } from '../libs/domain/users/set-avatar';
import { emojiImageKey } from '../libs/domain/emoji/upload-realm-emoji';
import { uploadStore } from '../libs/storage/upload-store';

type Row = Record<string, unknown>;

const readAll = async (ctx: AppContext, key: string): Promise<string | null> => {
  const object = await uploadStore(ctx.config).read(key);
  if (!object) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of object.body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('base64');
};

/**
 * An organization's content with every id replaced by what it names (emails, channel names,
 * message order) and every upload as its bytes: two organizations holding the same data give
 * equal snapshots whatever ids they got. Times are PostgreSQL's text, microseconds included.
 */
export async function realmSnapshot(ctx: AppContext, realmId: number): Promise<Row> {
  const pool = sqlPool(ctx);
  const q = async (sql: string) => (await pool.query<Row>(sql, [realmId])).rows;
  const users = await q(`SELECT u.id, u.email, u.delivery_email, u.full_name, u.role, u.is_bot,
      u.bot_type, o.email AS bot_owner, u.is_active, u.is_mirror_dummy, u.is_system_bot,
      u.avatar_source, u.timezone, u.date_joined::text, u.password_hash, u.api_key_ciphertext,
      u.twenty_four_hour_time, u.email_address_visibility
    FROM users u LEFT JOIN users o ON o.id = u.bot_owner_id WHERE u.realm_id = $1 ORDER BY u.email`);
  const avatars: Row = {};
  for (const u of users) {
    const keys = avatarKeys({ id: u.id as number, realmId });
    // Only uploaded avatars are stored (the test upload directory is shared by every test
    // database, so other ids' files may sit at a gravatar user's keys).
    avatars[u.email as string] =
      u.avatar_source === 'U'
        ? [await readAll(ctx, keys.small), await readAll(ctx, keys.medium)]
        : null;
    u.api_key = decryptApiKey(u.api_key_ciphertext as string, ctx.config.secretKey);
    delete u.api_key_ciphertext;
    delete u.id;
  }
  const channels = await q(`SELECT s.name, s.description, s.rendered_description, s.invite_only,
      s.is_web_public, s.history_public_to_subscribers, s.is_archived, s.date_created::text,
      c.email AS creator, g.name AS can_send_message_group,
      (SELECT json_agg(json_build_array(u.email, sub.active, sub.color, sub.is_muted, sub.pin_to_top)
              ORDER BY u.email)
         FROM subscriptions sub JOIN users u ON u.id = sub.user_id
        WHERE sub.recipient_id = s.recipient_id) AS subscribers,
      (SELECT min(m.date_sent)::text FROM messages m WHERE m.id = s.first_message_id) AS first_message
    FROM streams s LEFT JOIN users c ON c.id = s.creator_id
    LEFT JOIN user_groups g ON g.id = s.can_send_message_group_id
    WHERE s.realm_id = $1 ORDER BY s.name`);
  const messages = await q(`SELECT m.id, snd.email AS sender,
      CASE r.type WHEN 2 THEN (SELECT name FROM streams WHERE id = r.type_id)
        ELSE (SELECT string_agg(u.email, ',' ORDER BY u.email) FROM subscriptions sub
               JOIN users u ON u.id = sub.user_id WHERE sub.recipient_id = r.id) END AS recipient,
      r.type AS recipient_type, m.subject, m.content, m.rendered_content, m.date_sent::text,
      m.last_edit_time::text, m.last_moved_time::text, m.edit_history, m.sending_client_name,
      m.has_attachment, m.has_image, m.has_link, m.is_channel_message,
      (SELECT json_agg(json_build_array(u.email, um.flags) ORDER BY u.email)
         FROM user_messages um JOIN users u ON u.id = um.user_id WHERE um.message_id = m.id) AS flags,
      (SELECT json_agg(json_build_array(u.email, re.emoji_name, re.emoji_code, re.reaction_type)
              ORDER BY u.email, re.emoji_code)
         FROM reactions re JOIN users u ON u.id = re.user_id WHERE re.message_id = m.id) AS reactions,
      (SELECT count(*)::int FROM messages x WHERE x.id = m.id
          AND x.search_tsv @@ plainto_tsquery('english', m.subject)) AS searchable
    FROM messages m JOIN users snd ON snd.id = m.sender_id JOIN recipients r ON r.id = m.recipient_id
    WHERE m.realm_id = $1 ORDER BY m.id`);
  const prefix = `/user_uploads/${realmId}/`;
  const names = await q(`SELECT 'user' AS kind, id, email AS name FROM users WHERE realm_id = $1
    UNION ALL SELECT 'channel', id, name FROM streams WHERE realm_id = $1
    UNION ALL SELECT 'group', id, name FROM user_groups WHERE realm_id = $1`);
  const nameOf = new Map(
    names.map((n) => [`${n.kind as string}:${n.id as number}`, n.name as string]),
  );
  const named = (kind: string) => (_: string, before: string, id: string) =>
    `${before}${String(nameOf.get(`${kind}:${id}`) ?? `missing ${id}`)}`;
  for (const m of messages) {
    delete m.id;
    // The organization's id is the first segment of upload paths; the rest must match.
    m.content = String(m.content).split(prefix).join('/user_uploads/REALM/');
    // Mentions and channel links carry ids: compared by what they name.
    m.rendered_content = String(m.rendered_content)
      .split(prefix)
      .join('/user_uploads/REALM/')
      .replace(/(data-user-id=")(\d+)/g, named('user'))
      .replace(/(data-user-group-id=")(\d+)/g, named('group'))
      .replace(/(data-stream-id="|\/#narrow\/channel\/)(\d+)/g, named('channel'));
  }
  const attachments = await q(`SELECT a.path_id, a.file_name, a.size, a.content_type,
      a.create_time::text, u.email AS owner, a.is_realm_public,
      (SELECT count(*)::int FROM attachment_messages am WHERE am.attachment_id = a.id) AS messages
    FROM attachments a JOIN users u ON u.id = a.owner_id WHERE a.realm_id = $1 ORDER BY a.file_name`);
  for (const a of attachments) {
    a.bytes = await readAll(ctx, attachmentKey(a.path_id as string));
    a.path_id = String(a.path_id).split('/').slice(1).join('/');
  }
  const emoji = await q(`SELECT e.name, e.file_name, e.deactivated, u.email AS author
    FROM realm_emoji e LEFT JOIN users u ON u.id = e.author_id WHERE e.realm_id = $1 ORDER BY e.name`);
  for (const e of emoji)
    e.bytes = await readAll(ctx, emojiImageKey(realmId, e.file_name as string));
  const groups = await q(`SELECT g.name, g.description, g.is_system_group, g.named,
      (SELECT json_agg(u.email ORDER BY u.email) FROM user_group_memberships gm
         JOIN users u ON u.id = gm.user_id WHERE gm.user_group_id = g.id) AS members,
      (SELECT json_agg(sg.name ORDER BY sg.name) FROM group_group_memberships gg
         JOIN user_groups sg ON sg.id = gg.subgroup_id WHERE gg.supergroup_id = g.id) AS subgroups
    FROM user_groups g WHERE g.realm_id = $1 AND g.named ORDER BY g.name`);
  const realm = (
    await q(`SELECT r.name, r.description, r.invite_required, r.message_content_edit_limit_seconds,
      n.name AS new_stream_announcements, g.name AS can_create_public_channel_group
      FROM realms r LEFT JOIN streams n ON n.id = r.new_stream_announcements_stream_id
      LEFT JOIN user_groups g ON g.id = r.can_create_public_channel_group_id WHERE r.id = $1`)
  )[0];
  return { realm, users, avatars, channels, messages, attachments, emoji, groups };
}
