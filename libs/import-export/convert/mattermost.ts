import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { at } from '../../core/at';
import { Role, type RoleCode } from '../../domain/users/roles';
import { ImportError } from '../errors';
import type { ProgressReporter } from '../progress';
import { unicodeEmoji } from './emoji';
import { isFile, jsonLines, type JsonRecord } from './json-input';
import { ConvertReport } from './report';
import { ThreadTopics } from './thread-topics';
import { ZulipExportWriter } from './zulip-writer';

/**
 * Mattermost's bulk export (`mmctl export create`, unpacked): one JSON Lines file of `version`,
 * `team`, `channel`, `user`, `post`, `direct_channel`, `direct_post` and `emoji` lines
 * (https://docs.mattermost.com/onboard/bulk-loading-data.html), and the `data/` folder holding
 * attachments and emoji images. One team becomes the organization, as in Zulip's converter
 * (zerver/data_import/mattermost.py); a post with replies becomes a topic of its own, named as
 * Zulip names Slack threads, other posts go to "imported from mattermost".
 */

export interface MattermostOptions {
  dir: string;
  out: string;
  /** The team to import; may be left out when the export has one. */
  team?: string;
  realmName: string;
  report: ConvertReport;
  progress: ProgressReporter;
}

export const MATTERMOST_TOPIC = 'imported from mattermost';

const POST_FIELDS: ReadonlySet<string> = new Set(
  'team channel user message props create_at edit_at flagged_by replies reactions attachments type is_pinned channel_members'.split(
    ' ',
  ),
);
const KNOWN: Record<string, ReadonlySet<string>> = {
  team: new Set('name display_name type description allow_open_invite scheme'.split(' ')),
  channel: new Set('team name display_name type header purpose scheme deleted_at'.split(' ')),
  user: new Set(
    'username email auth_service auth_data password nickname first_name last_name position roles locale use_markdown preferences teams notify_props delete_at theme military_time collapse_previews message_display channel_display_mode tutorial_step email_interval show_unread_section custom_status'.split(
      ' ',
    ),
  ),
  bot: new Set('username display_name owner description delete_at'.split(' ')),
  post: POST_FIELDS,
  direct_channel: new Set('members favorited_by header shown_by'.split(' ')),
  emoji: new Set(['name', 'image']),
};
const LINE_TYPES = new Set(['version', 'scheme', 'role', ...Object.keys(KNOWN), 'direct_post']);

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const object = (v: unknown): JsonRecord =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonRecord) : {};
const words = (v: unknown): string[] => (str(v) ?? '').split(/\s+/).filter(Boolean);

/** The one JSON Lines file at the export's root. */
export async function mattermostFile(dir: string): Promise<string | null> {
  const [first] = (await readdir(dir)).filter((n) => n.endsWith('.jsonl')).sort();
  return first === undefined ? null : path.join(dir, first);
}

export class MattermostConverter {
  private readonly writer: ZulipExportWriter;
  private readonly users = new Map<string, number>();
  private readonly channels = new Map<
    string,
    { id: number; recipient: number; members: Set<number> }
  >();
  private readonly topics = new ThreadTopics();
  private readonly now = Date.now() / 1000;
  private team = '';
  private file = '';

  constructor(private readonly options: MattermostOptions) {
    this.writer = new ZulipExportWriter(options.out, {
      name: options.realmName,
      description: 'Organization imported from Mattermost.',
      dateCreated: this.now,
    });
  }

  private get report() {
    return this.options.report;
  }

  async convert(): Promise<void> {
    try {
      await this.convertFile();
    } finally {
      await this.writer.close();
    }
  }

  private async convertFile(): Promise<void> {
    const file = await mattermostFile(this.options.dir);
    if (!file)
      throw new ImportError(
        path.basename(this.options.dir),
        'no .jsonl file: not a Mattermost export',
      );
    this.file = path.basename(file);
    const lines = new Map<string, JsonRecord[]>();
    const teams: string[] = [];
    // First pass: everything but posts (the export writes them in no promised order).
    for await (const { line, record } of jsonLines(file, this.file)) {
      const type = str(record.type);
      if (!type || !LINE_TYPES.has(type)) {
        this.report.ignore(`line.type.${String(type)}`);
        continue;
      }
      if (type === 'post' || type === 'direct_post' || type === 'version') continue;
      const body = object(record[type]);
      if (KNOWN[type]) this.report.fields(type, body, KNOWN[type]);
      if (type === 'team' && str(body.name)) teams.push(str(body.name) as string);
      const group = lines.get(type) ?? [];
      group.push({ ...body, _line: line });
      lines.set(type, group);
    }
    this.team = this.chooseTeam(teams);
    this.readUsers(lines.get('user') ?? [], lines.get('bot') ?? []);
    await this.readEmoji(lines.get('emoji') ?? []);
    this.readChannels(lines.get('channel') ?? [], lines.get('user') ?? []);
    this.readDirectChannels(lines.get('direct_channel') ?? []);

    let seen = 0;
    for await (const { line, record } of jsonLines(file, this.file)) {
      seen += 1;
      const type = str(record.type);
      if (type === 'post' || type === 'direct_post') {
        const body = object(record[type]);
        this.report.fields(type, body, POST_FIELDS);
        await this.post(type, body, `line ${line}`);
      }
      if (seen % 1000 === 0) this.options.progress({ stage: 'mattermost lines', done: seen });
    }
    this.options.progress({ stage: 'mattermost lines', done: seen, total: seen });
    await this.writer.finish();
  }

  private chooseTeam(teams: string[]): string {
    const wanted = this.options.team;
    if (wanted) {
      if (!teams.includes(wanted)) {
        throw new ImportError(this.file, `no team '${wanted}' (teams: ${teams.join(', ')})`);
      }
      return wanted;
    }
    const [only, ...others] = teams;
    if (only === undefined || others.length > 0) {
      throw new ImportError(
        this.file,
        `holds ${teams.length} teams (${teams.join(', ')}): choose one with --team`,
      );
    }
    return only;
  }

  private teamEntry(user: JsonRecord): JsonRecord | undefined {
    return list(user.teams)
      .map(object)
      .find((t) => t.name === this.team);
  }

  private roleOf(user: JsonRecord, team: JsonRecord): RoleCode {
    const system = words(user.roles);
    const inTeam = words(team.roles);
    if (system.includes('system_guest') || inTeam.includes('team_guest')) return Role.GUEST;
    if (system.includes('system_admin')) return Role.OWNER;
    if (inTeam.includes('team_admin')) return Role.ADMINISTRATOR;
    return Role.MEMBER;
  }

  private readUsers(users: JsonRecord[], bots: JsonRecord[]) {
    for (const u of users) {
      const username = str(u.username);
      if (!username)
        throw new ImportError(this.file, 'a user without username', `line ${String(u._line)}`);
      const team = this.teamEntry(u);
      if (!team) continue;
      const name = [str(u.first_name), str(u.last_name)].filter(Boolean).join(' ').trim();
      const id = this.writer.addUser({
        email: (str(u.email) ?? `${username}@mattermost.invalid`).toLowerCase(),
        fullName: name || username,
        role: this.roleOf(u, team),
        isActive: !(Number(u.delete_at ?? 0) > 0),
        isBot: false,
        isMirrorDummy: false,
        dateJoined: this.now,
      });
      this.users.set(username, id);
      // Mattermost's one free-text profile attribute.
      const position = str(u.position)?.trim();
      if (position) this.writer.setProfileValue(id, this.writer.profileField('Position'), position);
    }
    for (const b of bots) {
      const username = str(b.username);
      if (!username || this.users.has(username)) continue;
      const owner = this.users.get(str(b.owner) ?? '');
      const id = this.writer.addUser({
        email: `${username}-bot@mattermost.invalid`,
        fullName: str(b.display_name) || username,
        role: Role.MEMBER,
        isActive: !(Number(b.delete_at ?? 0) > 0),
        isBot: true,
        isMirrorDummy: false,
        dateJoined: this.now,
        botOwner: owner ?? null,
      });
      this.users.set(username, id);
    }
  }

  /** A path from the export: under `data/` (or the root), never outside it. */
  private async dataFile(rel: string): Promise<string | null> {
    if (path.isAbsolute(rel) || rel.split(/[\\/]/).includes('..')) return null;
    for (const base of [path.join(this.options.dir, 'data'), this.options.dir]) {
      const candidate = path.join(base, rel);
      if (await isFile(candidate)) return candidate;
    }
    return null;
  }

  private async readEmoji(emoji: JsonRecord[]) {
    for (const e of emoji) {
      const name = str(e.name);
      const image = str(e.image);
      if (!name || !image) continue;
      const source = await this.dataFile(image);
      if (!source) {
        this.report.filesNotFetched.push(`emoji ${name}: ${image} is not in the export`);
        continue;
      }
      await this.writer.addRealmEmoji(name, source, path.extname(image) || '.png');
    }
  }

  private readChannels(channels: JsonRecord[], users: JsonRecord[]) {
    for (const c of channels) {
      if (c.team !== this.team) continue;
      const name = str(c.name);
      if (!name)
        throw new ImportError(this.file, 'a channel without name', `line ${String(c._line)}`);
      const created = this.writer.addChannel({
        name: str(c.display_name) || name,
        description: str(c.purpose) || str(c.header) || '',
        inviteOnly: c.type === 'P',
        isArchived: Number(c.deleted_at ?? 0) > 0,
        dateCreated: this.now,
      });
      this.channels.set(name, { ...created, members: new Set() });
    }
    for (const u of users) {
      const user = this.users.get(str(u.username) ?? '');
      const team = this.teamEntry(u);
      if (user === undefined || !team) continue;
      for (const ch of list(team.channels).map(object)) {
        const channel = this.channels.get(str(ch.name) ?? '');
        if (!channel) {
          this.report.lacking(
            this.file,
            `line ${String(u._line)}`,
            `user ${String(u.username)} is in channel ${String(ch.name)}, which the export lacks`,
          );
          continue;
        }
        channel.members.add(user);
        this.writer.subscribeToChannel(channel.id, user);
      }
    }
  }

  private readDirectChannels(directs: JsonRecord[]) {
    for (const d of directs) {
      const members = this.members(list(d.members), `line ${String(d._line)}`);
      if (members && members.length > 2) this.writer.directRecipient(at(members, 0), members);
    }
  }

  /** Users of a direct channel; undefined when one is missing (reported). */
  private members(names: unknown[], record: string): number[] | undefined {
    const ids: number[] = [];
    for (const n of names) {
      const id = this.users.get(String(n));
      if (id === undefined) {
        this.report.lacking(
          this.file,
          record,
          `direct channel member ${String(n)} is not on team ${this.team}`,
        );
        return undefined;
      }
      ids.push(id);
    }
    return ids;
  }

  /** The author of a post: a user of the team, or an inactive mirror account. */
  private author(username: string): number {
    const known = this.users.get(username);
    if (known !== undefined) return known;
    const id = this.writer.addUser({
      email: `${username.toLowerCase()}@mattermost.invalid`,
      fullName: username,
      role: Role.MEMBER,
      isActive: false,
      isBot: false,
      isMirrorDummy: true,
      dateJoined: this.now,
    });
    this.users.set(username, id);
    return id;
  }

  private convertMentions(text: string): string {
    return text.replace(
      /(^|[^\w@.-])@([a-z0-9][a-z0-9._-]*[a-z0-9_]|[a-z0-9])/gi,
      (whole, before: string, name: string) => {
        const lower = name.toLowerCase();
        if (lower === 'all' || lower === 'channel' || lower === 'here') return `${before}@**all**`;
        const user = this.users.get(name) ?? this.users.get(lower);
        return user === undefined ? whole : `${before}@**${this.writer.fullName(user)}**`;
      },
    );
  }

  private async post(type: 'post' | 'direct_post', body: JsonRecord, record: string) {
    const user = str(body.user);
    if (!user) throw new ImportError(this.file, 'a post without user', record);
    let recipient: number;
    let readers: number[];
    let isChannel = false;
    if (type === 'post') {
      if (body.team !== this.team) return;
      const channel = this.channels.get(str(body.channel) ?? '');
      if (!channel) {
        this.report.lacking(
          this.file,
          record,
          `channel ${String(body.channel)} is not in the export`,
        );
        return;
      }
      recipient = channel.recipient;
      readers = [...channel.members];
      isChannel = true;
    } else {
      const members = this.members(list(body.channel_members), record);
      if (!members) return;
      recipient = this.writer.directRecipient(this.author(user), members);
      readers = members;
    }
    const replies = list(body.replies).map(object);
    const created = Number(body.create_at) / 1000;
    if (!Number.isFinite(created))
      throw new ImportError(this.file, 'create_at is not a number', record);
    let topic = '';
    const rootContent = this.convertMentions(str(body.message) ?? '');
    if (isChannel) {
      topic =
        replies.length > 0
          ? this.topics.name(
              `${String(body.channel)}-${String(body.create_at)}`,
              created,
              rootContent,
            )
          : MATTERMOST_TOPIC;
    }
    const place = { recipient, readers, topic: isChannel ? topic : '' };
    await this.message(body, record, place);
    replies.sort((a, b) => Number(a.create_at) - Number(b.create_at));
    for (const [i, reply] of replies.entries()) {
      this.report.fields('reply', reply, POST_FIELDS);
      await this.message(reply, `${record} replies[${i}]`, place);
    }
  }

  /** A post's attachments, stored from `data/`; the links to put in its content. */
  private async attachments(body: JsonRecord, sender: number, messageId: number) {
    const dateSent = Number(body.create_at) / 1000;
    const links: string[] = [];
    for (const a of list(body.attachments).map(object)) {
      const rel = str(a.path);
      if (!rel) continue;
      const source = await this.dataFile(rel);
      if (!source) {
        this.report.filesNotFetched.push(`${rel}: not in the export`);
        continue;
      }
      links.push(
        await this.writer.addUpload({
          owner: sender,
          fileName: path.basename(rel),
          contentType: null,
          createTime: dateSent,
          source,
          size: (await stat(source)).size,
          messageId,
        }),
      );
    }
    return links;
  }

  /** One post or reply, to `place`: its recipient, who gets it, and its topic. */
  private async message(
    body: JsonRecord,
    record: string,
    place: { recipient: number; readers: number[]; topic: string },
  ) {
    const { recipient, readers, topic } = place;
    const sender = this.author(str(body.user) ?? '');
    const dateSent = Number(body.create_at) / 1000;
    if (!Number.isFinite(dateSent))
      throw new ImportError(this.file, 'create_at is not a number', record);
    const messageId = this.writer.peekMessageId();
    const links = await this.attachments(body, sender, messageId);
    const content = [this.convertMentions(str(body.message) ?? ''), ...links]
      .filter((p) => p !== '')
      .join('\n');
    const starredBy = list(body.flagged_by)
      .map((u) => this.users.get(String(u)))
      .filter((u): u is number => u !== undefined);
    const id = await this.writer.addMessage({
      sender,
      recipient,
      topic,
      content,
      dateSent,
      readers,
      starredBy,
      hasAttachment: links.length > 0,
    });
    for (const r of list(body.reactions).map(object)) {
      const name = str(r.emoji_name) ?? '';
      const user = this.users.get(str(r.user) ?? '');
      if (user === undefined) {
        this.report.lacking(
          this.file,
          record,
          `reaction by ${String(r.user)}, who is not on team ${this.team}`,
        );
        continue;
      }
      const custom = this.writer.realmEmojiId(name);
      const unicode = custom === undefined ? unicodeEmoji(name) : undefined;
      if (custom !== undefined) {
        this.writer.addReaction({
          message: id,
          user,
          emojiName: name,
          emojiCode: String(custom),
          reactionType: 'realm_emoji',
        });
      } else if (unicode) {
        this.writer.addReaction({
          message: id,
          user,
          emojiName: unicode.name,
          emojiCode: unicode.code,
          reactionType: 'unicode_emoji',
        });
      } else {
        this.report.emojiUnknown(name);
      }
    }
  }
}
