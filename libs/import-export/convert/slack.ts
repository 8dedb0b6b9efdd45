import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { at } from '../../core/at';
import type { Config } from '../../core/config';
import { Role, type RoleCode } from '../../domain/users/roles';
import { ImportError } from '../errors';
import type { ProgressReporter } from '../progress';
import { unicodeEmoji } from './emoji';
import { fetchToFile } from './fetch-file';
import { isFile, jsonArrayRecords, type JsonRecord } from './json-input';
import { ConvertReport } from './report';
import { mrkdwnToMarkdown, type MrkdwnNames } from './slack-mrkdwn';
import { ThreadTopics } from './thread-topics';
import { ZulipExportWriter } from './zulip-writer';

/**
 * Slack's export zip, unpacked (https://slack.com/help/articles/220556107): users.json,
 * channels.json, groups.json (private channels), dms.json, mpims.json, and a folder per
 * conversation holding a JSON file per day. Converted into Zulip's export format the way
 * Zulip's own converter does (zerver/data_import/slack.py): a thread becomes a topic named
 * after its date and first words, other channel messages go to "imported from Slack".
 */

export interface SlackOptions {
  /** The unpacked export. */
  dir: string;
  /** Where the Zulip-format export is written. */
  out: string;
  realmName: string;
  report: ConvertReport;
  config: Pick<Config, 'outgoingWebhookAllowedHosts' | 'maxFileUploadSizeMib'>;
  /** Sent as a bearer token when fetching files from Slack (files.slack.com wants one). */
  token?: string;
  progress: ProgressReporter;
}

export const SLACK_TOPIC = 'imported from Slack';

/** Message subtypes Zulip's converter leaves out: Slack's join/leave and pin notices. */
const SKIPPED_SUBTYPES = new Set([
  'pinned_item',
  'unpinned_item',
  'channel_join',
  'channel_leave',
  'channel_name',
]);
/** Subtypes whose text is an action: shown as `/me` messages. */
const ME_SUBTYPES = new Set(['bot_add', 'sh_room_created', 'me_message']);

/** Fields known to Slack's export, used or deliberately left behind; others are counted. */
const KNOWN = {
  user: new Set(
    'id team_id name deleted color real_name tz tz_label tz_offset profile is_admin is_owner is_primary_owner is_restricted is_ultra_restricted is_bot is_app_user updated is_email_confirmed who_can_share_contact_card enterprise_user is_invited_user is_connector_bot is_workflow_bot'.split(
      ' ',
    ),
  ),
  channel: new Set(
    'id name created creator is_archived is_general members topic purpose pins is_private is_mpim name_normalized'.split(
      ' ',
    ),
  ),
  dm: new Set(['id', 'created', 'members', 'user', 'is_im']),
  message: new Set(
    'type subtype user text ts thread_ts parent_user_id reply_count reply_users_count latest_reply reply_users replies subscribed last_read reactions files file upload edited bot_id bot_profile username icons user_profile client_msg_id team user_team source_team blocks attachments root display_as_bot is_locked comment is_starred pinned_to app_id channel inviter purpose topic old_name name hidden x_files permalink'.split(
      ' ',
    ),
  ),
} satisfies Record<string, ReadonlySet<string>>;

/** Profile fields Slack keeps for everyone: key in `profile`, and the Zulip field's name. */
const FIXED_PROFILE_FIELDS: Record<string, string> = { phone: 'Phone number', skype: 'Skype' };

interface Conversation {
  kind: 'channel' | 'dm' | 'mpim';
  /** The folder holding its days. */
  folder: string;
  recipient: number;
  /** Who gets its messages (channel members, DM participants). */
  members: number[];
  /** Slack ids of the participants of a DM or group DM (for the recipient, by sender). */
  slackMembers: string[];
}

interface SlackFile extends JsonRecord {
  id?: string;
  name?: string;
  title?: string;
  mimetype?: string;
  size?: number;
  url_private?: string;
  url_private_download?: string;
  is_external?: boolean;
  mode?: string;
  file_access?: string;
  timestamp?: number;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const object = (v: unknown): JsonRecord =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonRecord) : {};

function roleOf(user: JsonRecord): RoleCode {
  if (user.is_restricted === true || user.is_ultra_restricted === true) return Role.GUEST;
  if (user.is_owner === true || user.is_primary_owner === true) return Role.OWNER;
  if (user.is_admin === true) return Role.ADMINISTRATOR;
  return Role.MEMBER;
}

function fullNameOf(user: JsonRecord): string {
  const profile = object(user.profile);
  return (
    [str(profile.real_name), str(user.real_name), str(profile.display_name), str(user.name)]
      .map((n) => n?.trim())
      .find((n) => n) ?? String(user.id)
  );
}

const fallbackEmail = (slackId: string) => `${slackId.toLowerCase()}@slack.invalid`;

/** Slack's `ts`, "1700000000.000100", as float seconds. */
function seconds(ts: unknown): number | undefined {
  const n = typeof ts === 'string' ? Number(ts) : typeof ts === 'number' ? ts : NaN;
  return Number.isFinite(n) ? n : undefined;
}

export class SlackConverter {
  private readonly writer: ZulipExportWriter;
  private readonly users = new Map<string, number>();
  private readonly botUsers = new Map<string, number>();
  private readonly channelNames = new Map<string, string>();
  private readonly conversations = new Map<string, Conversation>();
  private readonly topics = new ThreadTopics();
  /** Custom emoji another name stands for (`alias:partyparrot`). */
  private readonly emojiAliases = new Map<string, string>();
  private readonly names: MrkdwnNames;
  private scratch = '';
  private fetched = 0;
  private now = Date.now() / 1000;

  constructor(private readonly options: SlackOptions) {
    this.writer = new ZulipExportWriter(options.out, {
      name: options.realmName,
      description: 'Organization imported from Slack.',
      dateCreated: this.now,
    });
    this.names = {
      user: (id) => {
        const user = this.users.get(id);
        return user === undefined ? undefined : this.writer.fullName(user);
      },
      channel: (id) => this.channelNames.get(id),
    };
  }

  private get report() {
    return this.options.report;
  }

  async convert(): Promise<{ filesFetched: number }> {
    const { dir } = this.options;
    if (!(await isFile(path.join(dir, 'users.json')))) {
      throw new ImportError('users.json', 'missing: this is not a Slack export');
    }
    this.scratch = await mkdtemp(path.join(this.options.out, '..', 'slack-files-'));
    try {
      await this.readUsers();
      await this.readCustomEmoji();
      await this.readChannels('channels.json', false);
      await this.readChannels('groups.json', true);
      await this.readDirect('dms.json', 'dm');
      await this.readDirect('mpims.json', 'mpim');
      await this.readMessages();
      await this.writer.finish();
      return { filesFetched: this.fetched };
    } finally {
      await this.writer.close();
      await rm(this.scratch, { recursive: true, force: true });
    }
  }

  private async records(
    name: string,
  ): Promise<AsyncGenerator<{ index: number; record: JsonRecord }> | null> {
    const file = path.join(this.options.dir, name);
    return (await isFile(file)) ? jsonArrayRecords(file, name) : null;
  }

  private async readUsers() {
    const emails = new Map<string, number>();
    for await (const { index, record } of (await this.records('users.json')) ?? []) {
      this.report.fields('users.json', record, KNOWN.user);
      const id = str(record.id);
      if (!id) throw new ImportError('users.json', 'no id', `[${index}]`);
      const profile = object(record.profile);
      const email = (str(profile.email) ?? fallbackEmail(id)).toLowerCase();
      // Zulip merges Slack accounts sharing an address into one user.
      const same = emails.get(email);
      if (same !== undefined) {
        this.users.set(id, same);
        continue;
      }
      const isBot = record.is_bot === true || id === 'USLACKBOT';
      const user = this.writer.addUser({
        email,
        fullName: fullNameOf(record),
        role: isBot ? Role.MEMBER : roleOf(record),
        isActive: record.deleted !== true,
        isBot,
        isMirrorDummy: false,
        dateJoined: seconds(record.updated) ?? this.now,
        timezone: str(record.tz),
      });
      emails.set(email, user);
      this.users.set(id, user);
      this.profileValues(user, profile);
      const botId = str(profile.bot_id);
      if (botId) this.botUsers.set(botId, user);
    }
  }

  /**
   * Profile fields, as Zulip's converter takes them: the phone number and Skype name Slack
   * keeps for everyone, and the workspace's own fields (`profile.fields`), named by their
   * Slack id since the export does not hold their names.
   */
  private profileValues(user: number, profile: JsonRecord) {
    for (const [key, name] of Object.entries(FIXED_PROFILE_FIELDS)) {
      const value = str(profile[key])?.trim();
      if (value) this.writer.setProfileValue(user, this.writer.profileField(name), value);
    }
    for (const [key, field] of Object.entries(object(profile.fields))) {
      const value = str(object(field).value)?.trim();
      if (value) this.writer.setProfileValue(user, this.writer.profileField(key), value);
    }
  }

  /**
   * Custom emoji, if the export has them: `emoji.json` at its root, as Slack's emoji.list
   * answers (name -> image URL or `alias:other`), the images under `emoji/` or fetched.
   */
  private async readCustomEmoji() {
    const file = path.join(this.options.dir, 'emoji.json');
    if (!(await isFile(file))) return;
    let table: JsonRecord;
    try {
      table = object(JSON.parse(await readFile(file, 'utf8')));
    } catch (err) {
      throw new ImportError('emoji.json', `malformed JSON (${(err as Error).message})`);
    }
    const emoji = object(table.emoji ?? table);
    const local = new Map<string, string>();
    const folder = path.join(this.options.dir, 'emoji');
    for (const f of await readdir(folder).catch(() => [] as string[])) {
      local.set(path.parse(f).name, path.join(folder, f));
    }
    for (const [name, value] of Object.entries(emoji)) {
      const url = str(value);
      if (url?.startsWith('alias:')) this.emojiAliases.set(name, url.slice('alias:'.length));
      if (!url || url.startsWith('alias:')) continue;
      let source = local.get(name);
      if (!source) {
        source = path.join(this.scratch, `emoji-${name}`);
        const got = await fetchToFile(this.options.config, url, source);
        if (!got.ok) {
          this.report.filesNotFetched.push(`emoji ${name}: ${got.reason}`);
          continue;
        }
        this.fetched += 1;
      }
      const extension = path.extname(local.get(name) ?? at(url.split(/[?#]/), 0));
      await this.writer.addRealmEmoji(name, source, extension || '.png');
    }
  }

  /** Members named by a conversation; unknown ones are reported. */
  private memberIds(file: string, record: string, slackIds: unknown[]): number[] {
    const out: number[] = [];
    for (const m of slackIds) {
      const id = this.users.get(String(m));
      if (id === undefined)
        this.report.lacking(file, record, `member ${String(m)} is not in users.json`);
      else out.push(id);
    }
    return out;
  }

  private async readChannels(name: string, inviteOnly: boolean) {
    for await (const { index, record } of (await this.records(name)) ?? []) {
      this.report.fields(name, record, KNOWN.channel);
      const id = str(record.id);
      const channelName = str(record.name);
      if (!id || !channelName) throw new ImportError(name, 'no id or name', `[${index}]`);
      const members = this.memberIds(name, `[${index}]`, list(record.members));
      const created = this.writer.addChannel({
        name: channelName,
        description: str(object(record.purpose).value) ?? '',
        inviteOnly,
        isArchived: record.is_archived === true,
        dateCreated: seconds(record.created) ?? this.now,
        creator: this.users.get(String(record.creator)) ?? null,
      });
      for (const m of members) this.writer.subscribeToChannel(created.id, m);
      if (record.is_general === true) this.writer.addDefaultChannel(created.id);
      this.channelNames.set(id, channelName);
      this.conversations.set(channelName, {
        kind: 'channel',
        folder: channelName,
        recipient: created.recipient,
        members,
        slackMembers: [],
      });
    }
  }

  private async readDirect(name: string, kind: 'dm' | 'mpim') {
    for await (const { index, record } of (await this.records(name)) ?? []) {
      this.report.fields(name, record, kind === 'dm' ? KNOWN.dm : KNOWN.channel);
      const folder = kind === 'dm' ? str(record.id) : str(record.name);
      if (!folder) throw new ImportError(name, 'no id or name', `[${index}]`);
      const slackMembers = list(record.members).map(String);
      const members = this.memberIds(name, `[${index}]`, slackMembers);
      const [first] = members;
      if (first === undefined) continue;
      this.conversations.set(folder, {
        kind,
        folder,
        recipient: kind === 'mpim' ? this.writer.directRecipient(first, members) : 0,
        members,
        slackMembers,
      });
    }
  }

  /** Day by day across all conversations, each day's messages in time order, as Zulip does. */
  private async readMessages() {
    const { dir } = this.options;
    const days = new Map<string, string[]>();
    const entries = await readdir(dir, { withFileTypes: true });
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name === 'emoji' || entry.name.startsWith('__')) continue;
      const files = (await readdir(path.join(dir, entry.name))).filter((f) =>
        /^\d{4}-\d{2}-\d{2}\.json$/.test(f),
      );
      if (files.length === 0) continue;
      if (!this.conversations.has(entry.name)) {
        this.report.lacking(
          `${entry.name}/${files[0]}`,
          entry.name,
          'a conversation that channels.json, groups.json, dms.json and mpims.json lack',
        );
        continue;
      }
      for (const f of files) {
        const day = f.slice(0, 10);
        days.set(day, [...(days.get(day) ?? []), entry.name]);
      }
    }
    const ordered = [...days.keys()].sort();
    for (const [n, day] of ordered.entries()) {
      const batch: { folder: string; file: string; index: number; message: JsonRecord }[] = [];
      for (const folder of days.get(day) ?? []) {
        const file = `${folder}/${day}.json`;
        for await (const { index, record } of jsonArrayRecords(path.join(dir, file), file)) {
          batch.push({ folder, file, index, message: record });
        }
      }
      batch.sort((a, b) => (seconds(a.message.ts) ?? 0) - (seconds(b.message.ts) ?? 0));
      for (const item of batch) await this.convertMessage(item);
      this.options.progress({ stage: 'slack days', done: n + 1, total: ordered.length });
    }
  }

  /** The Zulip user a message is from: its author, a bot's user, or a new mirror account. */
  private sender(message: JsonRecord): number | undefined {
    const slackId =
      str(message.user) ?? str(object(message.file).user) ?? str(object(message.comment).user);
    if (slackId) {
      const known = this.users.get(slackId);
      if (known !== undefined) return known;
      return this.mirror(slackId, str(object(message.user_profile).real_name) ?? slackId);
    }
    const botId = str(message.bot_id);
    if (!botId) return undefined;
    const bot = this.botUsers.get(botId);
    if (bot !== undefined) return bot;
    return this.mirror(botId, str(message.username) ?? botId);
  }

  /** Someone who only appears as an author: an inactive mirror account, as Zulip makes them. */
  private mirror(slackId: string, name: string): number {
    const id = this.writer.addUser({
      email: fallbackEmail(slackId),
      fullName: name,
      role: Role.MEMBER,
      isActive: false,
      isBot: false,
      isMirrorDummy: true,
      dateJoined: this.now,
    });
    this.users.set(slackId, id);
    return id;
  }

  private threadTopic(message: JsonRecord, content: string, threadTs: number): string {
    const root = object(message.root);
    const parent =
      message.subtype === 'thread_broadcast'
        ? str(root.user)
        : message.thread_ts === message.ts
          ? str(message.user)
          : str(message.parent_user_id);
    return this.topics.name(`${String(message.thread_ts)}-${parent ?? ''}`, threadTs, content);
  }

  private async convertMessage(item: {
    folder: string;
    file: string;
    index: number;
    message: JsonRecord;
  }) {
    const { message, file } = item;
    const record = `[${item.index}]`;
    this.report.fields('messages', message, KNOWN.message);
    const subtype = str(message.subtype);
    if (subtype && SKIPPED_SUBTYPES.has(subtype)) return;
    const conversation = this.conversations.get(item.folder) as Conversation;
    const sender = this.sender(message);
    if (sender === undefined) {
      // Slack writes a few notices with no author at all; Zulip's converter drops them too.
      return;
    }
    const dateSent = seconds(message.ts);
    if (dateSent === undefined) throw new ImportError(file, 'ts is not a timestamp', record);

    let recipient = conversation.recipient;
    if (conversation.kind === 'dm') {
      recipient = this.writer.directRecipient(sender, conversation.members);
    }
    let content = mrkdwnToMarkdown(str(message.text) ?? '', this.names);
    if (subtype && ME_SUBTYPES.has(subtype)) content = `/me ${content}`;

    const messageId = this.writer.peekMessageId();
    const links: string[] = [];
    let hasAttachment = false;
    const files = subtype === 'file_share' && message.file ? [message.file] : list(message.files);
    for (const f of files) {
      const link = await this.file(object(f), sender, messageId, dateSent);
      if (link) {
        links.push(link.markdown);
        hasAttachment ||= link.attachment;
      }
    }
    content = [content, ...links].filter((p) => p !== '').join('\n');

    let topic = '';
    if (conversation.kind === 'channel') {
      const threadTs = seconds(message.thread_ts);
      topic = threadTs === undefined ? SLACK_TOPIC : this.threadTopic(message, content, threadTs);
    }
    const id = await this.writer.addMessage({
      sender,
      recipient,
      topic,
      content,
      dateSent,
      readers: conversation.members,
      hasAttachment,
    });
    this.reactions(file, record, id, list(message.reactions));
  }

  private reactions(file: string, record: string, message: number, reactions: unknown[]) {
    for (const r of reactions) {
      const reaction = object(r);
      const name = str(reaction.name)?.split('::')[0];
      if (!name) continue;
      const unicode = unicodeEmoji(name);
      const customName = this.emojiAliases.get(name) ?? name;
      const custom = unicode ? undefined : this.writer.realmEmojiId(customName);
      if (!unicode && custom === undefined) {
        this.report.emojiUnknown(name);
        continue;
      }
      for (const u of list(reaction.users)) {
        const user = this.users.get(String(u));
        if (user === undefined) {
          this.report.lacking(file, record, `reaction by ${String(u)}, who is not in users.json`);
          continue;
        }
        this.writer.addReaction(
          unicode
            ? {
                message,
                user,
                emojiName: unicode.name,
                emojiCode: unicode.code,
                reactionType: 'unicode_emoji',
              }
            : {
                message,
                user,
                emojiName: customName,
                emojiCode: String(custom),
                reactionType: 'realm_emoji',
              },
        );
      }
    }
  }

  /**
   * A shared file: taken from the export when it holds it (`__uploads/<file id>/<name>`, where
   * export tools put it), otherwise downloaded through the egress policy; a link to where it
   * was when neither works, and for files kept outside Slack (Google Drive...).
   */
  private async file(
    f: SlackFile,
    owner: number,
    messageId: number,
    dateSent: number,
  ): Promise<{ markdown: string; attachment: boolean } | null> {
    if (f.mode === 'tombstone' || f.mode === 'hidden_by_limit') return null;
    if (f.file_access === 'access_denied' || f.file_access === 'file_not_found') return null;
    const name = f.name ?? f.title ?? f.id ?? 'file';
    const url = f.url_private_download ?? f.url_private;
    const label = (f.title ?? name).replace(/[[\]]/g, '');
    if (f.is_external === true)
      return url ? { markdown: `[${label}](${url})`, attachment: false } : null;
    let source: string | null = null;
    if (f.id) {
      const inExport = path.join(this.options.dir, '__uploads', f.id, path.basename(name));
      if (await isFile(inExport)) source = inExport;
    }
    if (!source && url) {
      const dest = path.join(this.scratch, `file-${messageId}-${f.id ?? 'x'}`);
      const headers: Record<string, string> = this.options.token
        ? { authorization: `Bearer ${this.options.token}` }
        : {};
      const got = await fetchToFile(this.options.config, url, dest, headers);
      if (got.ok) {
        source = dest;
        this.fetched += 1;
      } else {
        this.report.filesNotFetched.push(`${url}: ${got.reason}`);
      }
    }
    if (!source) return url ? { markdown: `[${label}](${url})`, attachment: false } : null;
    const markdown = await this.writer.addUpload({
      owner,
      fileName: name,
      contentType: f.mimetype ?? null,
      createTime: f.timestamp ?? dateSent,
      source,
      size: (await stat(source)).size,
      messageId,
    });
    return { markdown, attachment: true };
  }
}
