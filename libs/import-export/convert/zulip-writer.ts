import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { at } from '../../core/at';
import type {
  LinkableStream,
  MentionableUser,
  RealmEmojiEntry,
  RenderedMarkdown,
} from '../../markdown';
import { NOBODY_GROUP, SYSTEM_GROUP_NAMES } from '../../domain/groups/system-groups';
import { isRealmMember } from '../../domain/permissions/roles';
import { Role, type RoleCode } from '../../domain/users/roles';
import { messageFileName, MESSAGES_PER_FILE } from '../zulip-tables';
import { RenderPool } from './render-pool';
import type { RenderSeen } from './render-tables';

/**
 * Writes an organization in Zulip's export format (realm.json, messages-*.json, uploads/,
 * emoji/), as Zulip's own converters (zerver/data_import/) do, so that a converted Slack or
 * Mattermost export goes through the one import path. Messages are written 1,000 per file as
 * they come, their Markdown rendered by a pool of threads, a file's batch per request, a few
 * files at a time; everything else is small and kept until `finish`.
 */

/** The converter's own ids: 1, 2, ...; the import gives every row a new id anyway. */
const REALM_ID = 1;
const CLIENT_ID = 1;

type Row = Record<string, unknown>;

/** Zulip's message flags, as bits of flags_mask. */
export const FLAG_STARRED = 2;
export const FLAG_MENTIONED = 8;
export const FLAG_WILDCARD_MENTIONED = 16;

export interface NewUser {
  email: string;
  fullName: string;
  role: RoleCode;
  isActive: boolean;
  isBot: boolean;
  isMirrorDummy: boolean;
  dateJoined: number;
  timezone?: string;
  botOwner?: number | null;
}

export interface NewChannel {
  name: string;
  description: string;
  inviteOnly: boolean;
  isArchived: boolean;
  dateCreated: number;
  creator?: number | null;
}

export interface NewMessage {
  sender: number;
  recipient: number;
  /** Empty for direct messages. */
  topic: string;
  /** Zulip Markdown. */
  content: string;
  /** Seconds since the epoch. */
  dateSent: number;
  /** Users who get the message (subscribers of the channel, members of the conversation). */
  readers: Iterable<number>;
  /** Readers who starred it (Mattermost's flagged posts). */
  starredBy?: Iterable<number>;
  hasAttachment?: boolean;
}

export interface NewReaction {
  message: number;
  user: number;
  emojiName: string;
  emojiCode: string;
  reactionType: 'unicode_emoji' | 'realm_emoji';
}

/** Zulip's defaults for a new organization's permission settings, by system group. */
const REALM_GROUP_SETTINGS: Record<string, string> = {
  can_access_all_users_group: 'role:everyone',
  can_add_custom_emoji_group: 'role:members',
  can_add_subscribers_group: 'role:members',
  can_create_bots_group: 'role:members',
  can_create_groups: 'role:members',
  can_create_private_channel_group: 'role:members',
  can_create_public_channel_group: 'role:members',
  can_create_web_public_channel_group: 'role:owners',
  can_create_write_only_bots_group: 'role:members',
  can_delete_any_message_group: 'role:administrators',
  can_delete_own_message_group: 'role:everyone',
  can_invite_users_group: 'role:members',
  can_manage_all_groups: 'role:owners',
  can_manage_billing_group: 'role:administrators',
  can_mention_many_users_group: 'role:administrators',
  can_move_messages_between_channels_group: 'role:members',
  can_move_messages_between_topics_group: 'role:everyone',
  can_resolve_topics_group: 'role:everyone',
  can_set_delete_message_policy_group: 'role:moderators',
  can_set_topics_policy_group: 'role:members',
  can_summarize_topics_group: 'role:everyone',
  create_multiuse_invite_group: 'role:administrators',
  direct_message_initiator_group: 'role:everyone',
  direct_message_permission_group: 'role:everyone',
};

const CHANNEL_GROUP_SETTINGS: Record<string, string> = {
  can_add_subscribers_group: NOBODY_GROUP,
  can_administer_channel_group: NOBODY_GROUP,
  can_remove_subscribers_group: 'role:administrators',
  can_send_message_group: 'role:everyone',
  can_subscribe_group: NOBODY_GROUP,
};

const ROLE_GROUP: Record<RoleCode, string> = {
  [Role.OWNER]: 'role:owners',
  [Role.ADMINISTRATOR]: 'role:administrators',
  [Role.MODERATOR]: 'role:moderators',
  [Role.MEMBER]: 'role:members',
  [Role.GUEST]: 'role:everyone',
};

const GROUP_NAMES = [...SYSTEM_GROUP_NAMES, NOBODY_GROUP];

/** Zulip's topic names are at most 60 characters. */
export const MAX_TOPIC_LENGTH = 60;

/** Text cut to `max` characters, ending in `…` if cut. */
export function truncate(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : chars.slice(0, max - 1).join('') + '…';
}

export class ZulipExportWriter {
  private readonly users: Row[] = [];
  private readonly recipients: Row[] = [];
  private readonly streams: Row[] = [];
  private readonly subscriptions: Row[] = [];
  private readonly subscribed = new Set<string>();
  private readonly dmGroups: Row[] = [];
  private readonly dmGroupByMembers = new Map<string, number>();
  private readonly memberships: Row[] = [];
  private readonly reactions: Row[] = [];
  private readonly reactionKeys = new Set<string>();
  private readonly attachments: Row[] = [];
  private readonly uploadRecords: Row[] = [];
  private readonly emoji: Row[] = [];
  private readonly emojiRecords: Row[] = [];
  private readonly defaultStreams: Row[] = [];
  private readonly profileFields: Row[] = [];
  private readonly profileValues: Row[] = [];
  private readonly personalRecipient = new Map<number, number>();
  private readonly channelRecipient = new Map<number, number>();
  /** What messages can mention, link and show, in the order it was made (for the render pool). */
  private readonly names: {
    users: MentionableUser[];
    streams: LinkableStream[];
    emoji: RealmEmojiEntry[];
  } = { users: [], streams: [], emoji: [] };
  private readonly userNames = new Set<string>();
  private readonly groupIds = new Map<string, number>();
  private batch: PendingMessage[] = [];
  /** Files being rendered and written, oldest first. */
  private readonly writing: Promise<void>[] = [];
  private pool: RenderPool | null = null;
  private files = 0;
  private nextMessageId = 1;
  private messageCount = 0;

  constructor(
    readonly dir: string,
    private readonly realm: { name: string; description: string; dateCreated: number },
  ) {
    GROUP_NAMES.forEach((name, i) => this.groupIds.set(name, i + 1));
  }

  private group(name: string): number {
    return this.groupIds.get(name) as number;
  }

  private addRecipient(type: 1 | 2 | 3, typeId: number): number {
    const id = this.recipients.length + 1;
    this.recipients.push({ id, type, type_id: typeId });
    return id;
  }

  private subscribe(user: number, recipient: number) {
    const key = `${user}:${recipient}`;
    if (this.subscribed.has(key)) return;
    this.subscribed.add(key);
    this.subscriptions.push({
      id: this.subscriptions.length + 1,
      user_profile: user,
      recipient,
      active: true,
      is_user_active: true,
      color: '#c2c2c2',
    });
  }

  addUser(user: NewUser): number {
    const id = this.users.length + 1;
    const recipient = this.addRecipient(1, id);
    this.personalRecipient.set(id, recipient);
    this.users.push({
      id,
      realm: REALM_ID,
      email: user.email,
      delivery_email: user.email,
      full_name: user.fullName,
      role: user.role,
      is_bot: user.isBot,
      bot_type: user.isBot ? 1 : null,
      bot_owner: user.botOwner ?? null,
      is_active: user.isActive,
      is_mirror_dummy: user.isMirrorDummy,
      date_joined: user.dateJoined,
      timezone: user.timezone ?? '',
      avatar_source: 'G',
      recipient,
    });
    this.subscribe(id, recipient);
    this.memberships.push({ user_group: this.group(ROLE_GROUP[user.role]), user_profile: id });
    if (isRealmMember(user)) {
      this.memberships.push({ user_group: this.group('role:fullmembers'), user_profile: id });
    }
    // A mention of a name means the first user of that name.
    const key = user.fullName.toLowerCase();
    if (!this.userNames.has(key)) {
      this.userNames.add(key);
      this.names.users.push({
        id,
        fullName: user.fullName,
        email: user.email,
        isActive: user.isActive,
      });
    }
    return id;
  }

  fullName(user: number): string {
    return at(this.users, user - 1).full_name as string;
  }

  addChannel(channel: NewChannel): { id: number; recipient: number } {
    const id = this.streams.length + 1;
    const recipient = this.addRecipient(2, id);
    this.channelRecipient.set(id, recipient);
    this.streams.push({
      id,
      realm: REALM_ID,
      name: channel.name,
      description: channel.description,
      rendered_description: '',
      invite_only: channel.inviteOnly,
      history_public_to_subscribers: !channel.inviteOnly,
      is_web_public: false,
      deactivated: channel.isArchived,
      date_created: channel.dateCreated,
      creator: channel.creator ?? null,
      recipient,
      ...Object.fromEntries(
        Object.entries(CHANNEL_GROUP_SETTINGS).map(([k, g]) => [k, this.group(g)]),
      ),
    });
    this.names.streams.push({ id, name: channel.name });
    return { id, recipient };
  }

  subscribeToChannel(channel: number, user: number) {
    this.subscribe(user, this.channelRecipient.get(channel) as number);
  }

  addDefaultChannel(channel: number) {
    this.defaultStreams.push({
      id: this.defaultStreams.length + 1,
      realm: REALM_ID,
      stream: channel,
    });
  }

  /**
   * The recipient of a direct message among `members` (sender included): the other person's
   * for two, the sender's own for one, a direct-message group for more.
   */
  directRecipient(sender: number, members: number[]): number {
    const unique = [...new Set([sender, ...members])].sort((a, b) => a - b);
    const [other, ...more] = unique.filter((u) => u !== sender);
    if (other === undefined) return this.personalRecipient.get(sender) as number;
    if (more.length === 0) return this.personalRecipient.get(other) as number;
    const key = unique.join(',');
    const known = this.dmGroupByMembers.get(key);
    if (known !== undefined) return known;
    const id = this.dmGroups.length + 1;
    const recipient = this.addRecipient(3, id);
    this.dmGroups.push({ id, realm: REALM_ID, recipient, group_size: unique.length });
    for (const user of unique) this.subscribe(user, recipient);
    this.dmGroupByMembers.set(key, recipient);
    return recipient;
  }

  /** A short-text custom profile field named `name`, made on first use; its id. */
  profileField(name: string): number {
    const known = this.profileFields.find((f) => f.name === name);
    if (known) return known.id as number;
    const id = this.profileFields.length + 1;
    this.profileFields.push({
      id,
      realm: REALM_ID,
      name,
      hint: '',
      field_type: 1,
      field_data: '',
      order: id,
    });
    return id;
  }

  setProfileValue(user: number, field: number, value: string) {
    this.profileValues.push({
      id: this.profileValues.length + 1,
      user_profile: user,
      field,
      value,
      rendered_value: null,
    });
  }

  /** Adds a custom emoji whose image is at `source`; returns its id (the reaction's code). */
  async addRealmEmoji(name: string, source: string, extension: string): Promise<number> {
    const id = this.emoji.length + 1;
    const fileName = `${id}${extension}`;
    const rel = path.join(String(REALM_ID), 'emoji', 'images', fileName);
    await mkdir(path.join(this.dir, 'emoji', path.dirname(rel)), { recursive: true });
    await copyFile(source, path.join(this.dir, 'emoji', rel));
    this.emoji.push({
      id,
      realm: REALM_ID,
      name,
      file_name: fileName,
      deactivated: false,
      author: null,
    });
    this.emojiRecords.push({ path: rel, file_name: fileName, realm_id: REALM_ID, name });
    this.names.emoji.push({
      id: String(id),
      name,
      sourceUrl: `/user_avatars/${REALM_ID}/emoji/images/${fileName}`,
      deactivated: false,
    });
    return id;
  }

  realmEmojiId(name: string): number | undefined {
    return this.emoji.find((e) => e.name === name)?.id as number | undefined;
  }

  /**
   * Stores an upload's bytes (already in `source`) and returns the link to put in the message:
   * `[name](/user_uploads/<realm>/<random>/<name>)`, as Zulip writes it.
   */
  async addUpload(upload: {
    owner: number;
    fileName: string;
    contentType: string | null;
    createTime: number;
    /** Where its bytes are now. */
    source: string;
    size: number;
    messageId: number;
  }): Promise<string> {
    const { source, size, messageId } = upload;
    const safe = upload.fileName.replace(/[^\w.-]+/g, '-').replace(/^[.-]+/, '') || 'file';
    const pathId = `${REALM_ID}/${randomBytes(12).toString('hex')}/${safe}`;
    await mkdir(path.join(this.dir, 'uploads', path.dirname(pathId)), { recursive: true });
    await copyFile(source, path.join(this.dir, 'uploads', pathId));
    this.attachments.push({
      id: this.attachments.length + 1,
      realm: REALM_ID,
      owner: upload.owner,
      path_id: pathId,
      file_name: upload.fileName,
      size,
      create_time: upload.createTime,
      content_type: upload.contentType,
      is_realm_public: true,
      messages: [messageId],
    });
    this.uploadRecords.push({ path: pathId, s3_path: pathId, size, realm_id: REALM_ID });
    const label = upload.fileName.replace(/[[\]]/g, '');
    return `[${label}](/user_uploads/${pathId})`;
  }

  /** The id the next message will get (uploads and reactions name it before it is added). */
  peekMessageId(): number {
    return this.nextMessageId;
  }

  /**
   * Adds a message, to be rendered with the users, channels and emoji there are now; its id.
   * Waits only when more files are being rendered than the pool has threads for.
   */
  async addMessage(message: NewMessage): Promise<number> {
    const id = this.nextMessageId++;
    this.batch.push({
      id,
      message: {
        ...message,
        readers: [...message.readers],
        starredBy: [...(message.starredBy ?? [])],
      },
      seen: {
        users: this.names.users.length,
        streams: this.names.streams.length,
        emoji: this.names.emoji.length,
      },
    });
    this.messageCount += 1;
    if (this.batch.length >= MESSAGES_PER_FILE) await this.flush();
    return id;
  }

  /** A messages file's rows, its messages rendered. */
  private rows(batch: PendingMessage[], rendered: RenderedMarkdown[]) {
    const messages: Row[] = [];
    const userMessages: Row[] = [];
    batch.forEach(({ id, message }, i) => {
      const r = at(rendered, i);
      messages.push({
        id,
        realm: REALM_ID,
        sender: message.sender,
        recipient: message.recipient,
        subject: message.topic,
        content: message.content,
        rendered_content: r.html,
        rendered_content_version: 1,
        date_sent: message.dateSent,
        sending_client: CLIENT_ID,
        has_attachment: message.hasAttachment ?? r.hasAttachment,
        has_image: r.hasImage,
        has_link: r.hasLink,
        is_channel_message: message.topic !== '' || this.isChannelRecipient(message.recipient),
      });
      const mentioned = new Set(r.mentionedUserIds);
      const starred = new Set(message.starredBy);
      const readers = new Set(message.readers);
      readers.add(message.sender);
      for (const user of readers) {
        let flags = 0;
        if (mentioned.has(user)) flags |= FLAG_MENTIONED;
        if (starred.has(user)) flags |= FLAG_STARRED;
        if (r.streamWildcardMentioned || r.topicWildcardMentioned) flags |= FLAG_WILDCARD_MENTIONED;
        userMessages.push({ user_profile: user, message: id, flags_mask: flags });
      }
    });
    return { zerver_message: messages, zerver_usermessage: userMessages };
  }

  private isChannelRecipient(recipient: number): boolean {
    return this.recipients[recipient - 1]?.type === 2;
  }

  addReaction(reaction: NewReaction) {
    const key = `${reaction.message}:${reaction.user}:${reaction.reactionType}:${reaction.emojiCode}`;
    if (this.reactionKeys.has(key)) return;
    this.reactionKeys.add(key);
    this.reactions.push({
      id: this.reactions.length + 1,
      message: reaction.message,
      user_profile: reaction.user,
      emoji_name: reaction.emojiName,
      emoji_code: reaction.emojiCode,
      reaction_type: reaction.reactionType,
    });
  }

  get counts() {
    return {
      users: this.users.length,
      channels: this.streams.length,
      messages: this.messageCount,
    };
  }

  /** Hands the batch to the render pool; its file is written when it comes back. */
  private async flush() {
    if (this.batch.length === 0) return;
    const batch = this.batch;
    this.batch = [];
    this.files += 1;
    const file = path.join(this.dir, messageFileName(this.files));
    const pool = (this.pool ??= new RenderPool());
    const written = pool
      .render(
        this.names,
        batch.map((p) => p.message.content),
        batch.map((p) => p.seen),
      )
      .then((rendered) => writeFile(file, JSON.stringify(this.rows(batch, rendered))));
    // Awaited below or in finish; a failure meanwhile is not an unhandled rejection.
    written.catch(() => undefined);
    this.writing.push(written);
    while (this.writing.length > 2 * pool.size) await this.writing.shift();
  }

  /** Stops the render threads (after `finish`, or when a conversion fails). */
  async close(): Promise<void> {
    await this.pool?.close();
  }

  /** Writes the last messages file, realm.json and the records of uploads and emoji. */
  async finish(): Promise<void> {
    await this.flush();
    for (const written of this.writing.splice(0)) await written;
    await this.close();
    const groups = GROUP_NAMES.map((name) => ({ id: this.group(name), realm: REALM_ID }));
    const named = GROUP_NAMES.map((name) => ({
      usergroup_ptr: this.group(name),
      realm_for_sharding: REALM_ID,
      name,
      description: '',
      is_system_group: true,
      can_add_members_group: this.group(NOBODY_GROUP),
      can_join_group: this.group(NOBODY_GROUP),
      can_leave_group: this.group(NOBODY_GROUP),
      can_manage_group: this.group(NOBODY_GROUP),
      can_mention_group: this.group('role:everyone'),
      can_remove_members_group: this.group(NOBODY_GROUP),
    }));
    const nesting = SYSTEM_GROUP_NAMES.slice(1).map((name, i) => ({
      supergroup: this.group(name),
      subgroup: this.group(at(SYSTEM_GROUP_NAMES, i)),
    }));
    const realm = {
      zerver_realm: [
        {
          id: REALM_ID,
          string_id: 'imported',
          name: this.realm.name,
          description: this.realm.description,
          date_created: this.realm.dateCreated,
          ...Object.fromEntries(
            Object.entries(REALM_GROUP_SETTINGS).map(([k, g]) => [k, this.group(g)]),
          ),
        },
      ],
      zerver_userprofile: this.users,
      zerver_recipient: this.recipients,
      zerver_stream: this.streams,
      zerver_subscription: this.subscriptions,
      zerver_directmessagegroup: this.dmGroups,
      zerver_usergroup: groups,
      zerver_namedusergroup: named,
      zerver_usergroupmembership: this.memberships,
      zerver_groupgroupmembership: nesting,
      zerver_defaultstream: this.defaultStreams,
      zerver_customprofilefield: this.profileFields,
      zerver_customprofilefieldvalue: this.profileValues,
      zerver_realmemoji: this.emoji,
      zerver_attachment: this.attachments,
      zerver_reaction: this.reactions,
      zerver_client: [{ id: CLIENT_ID, name: 'populate_db' }],
    };
    await writeFile(path.join(this.dir, 'realm.json'), JSON.stringify(realm));
    for (const [sub, records] of [
      ['uploads', this.uploadRecords],
      ['emoji', this.emojiRecords],
      ['avatars', []],
    ] as const) {
      await mkdir(path.join(this.dir, sub), { recursive: true });
      await writeFile(path.join(this.dir, sub, 'records.json'), JSON.stringify(records));
    }
  }
}

interface PendingMessage {
  id: number;
  message: NewMessage & { readers: number[]; starredBy: number[] };
  seen: RenderSeen;
}
