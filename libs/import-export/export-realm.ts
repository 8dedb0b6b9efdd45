import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import * as tar from 'tar';
import { at } from '../core/at';
import type { AppContext } from '../core/context';
import { sqlPool } from '../db/sql';
import { decryptApiKey } from '../domain/users/api-keys';
import { attachmentKey } from '../domain/attachments/storage';
import { avatarKeys } from '../domain/users/set-avatar';
import { emojiImageKey } from '../domain/emoji/upload-realm-emoji';
import { publicChannelRecipientsText } from '../domain/permissions/channel-kinds';
import { uploadStore } from '../storage/upload-store';
import { exportExpression, tableColumns, type Column } from './columns';
import { JsonWriter } from './json-out';
import { noProgress, type ProgressReporter } from './progress';
import {
  DM_GROUPS,
  fieldName,
  MESSAGE_CHILDREN,
  MESSAGES,
  MESSAGES_PER_FILE,
  messageFileName,
  REALM,
  RECIPIENTS,
  SIMPLE_TABLES,
  STREAMS,
  USER_GROUPS,
  USER_MESSAGES,
  USERS,
  type TableSpec,
} from './zulip-tables';

export interface ExportSummary {
  realmId: number;
  file: string;
  bytes: number;
  messages: number;
  users: number;
  uploads: number;
}

type Row = Record<string, unknown>;

/**
 * `full`: everything (`cli export`, Zulip's export with consent); `public`: what every member
 * can read (`POST /export/realm`, Zulip's public export): messages of public channels only,
 * and the uploads they link.
 */
export type ExportScope = 'full' | 'public';

interface Scope {
  /** Condition on a messages row aliased `t` (`$1` the organization). */
  messages: string;
  /** The ids of the exported messages. */
  messageIds: string;
  /** Condition on an attachments row aliased `t`. */
  attachments: string;
}

function scopeOf(scope: ExportScope): Scope {
  if (scope === 'full') {
    return {
      messages: 'TRUE',
      messageIds: 'SELECT id FROM messages WHERE realm_id = $1',
      attachments: 't.realm_id = $1',
    };
  }
  const publicChannel = `t.recipient_id IN (${publicChannelRecipientsText('$1')})`;
  const messageIds = `SELECT t.id FROM messages t WHERE t.realm_id = $1 AND ${publicChannel}`;
  return {
    messages: publicChannel,
    messageIds,
    attachments: `t.realm_id = $1 AND t.id IN (SELECT attachment_id FROM attachment_messages
      WHERE message_id IN (${messageIds}))`,
  };
}

/** A table's rows of the export: those of the organization, narrowed to the scope's messages. */
function scopedWhere(spec: TableSpec, scope: Scope): string {
  if (spec.refs.message_id === 'zerver_message') return `t.message_id IN (${scope.messageIds})`;
  if (spec.table === 'attachments') return scope.attachments;
  return spec.where;
}

/** Fields Zulip's NamedUserGroup holds; the rest of a group row is its UserGroup base. */
const NAMED_GROUP_FIELDS = new Set(['id', 'realm', 'named']);

/** Rows read per query for tables that may be large (reactions). */
const PAGE = 10_000;

async function exportColumns(client: PoolClient, spec: TableSpec): Promise<Column[]> {
  const omit = new Set(spec.omit ?? []);
  return (await tableColumns(client, spec.table)).filter((c) => !omit.has(c.name));
}

/** A row as Zulip's export writes it: Zulip's field names; foreign keys as bare ids. */
function toRecord(spec: TableSpec, columns: Column[], row: Row): Row {
  const record: Row = {};
  for (const c of columns) {
    let value = row[c.name];
    // Zulip keeps JSON in text fields (edit_history), so its export holds JSON text.
    if (c.type === 'json' && value !== null && value !== undefined) value = JSON.stringify(value);
    record[fieldName(spec, c.name)] = value;
  }
  return record;
}

async function* pagedRows(
  client: PoolClient,
  spec: TableSpec,
  columns: Column[],
  realmId: number,
  where = spec.where,
): AsyncGenerator<Row> {
  const select = columns.map((c) => exportExpression(c)).join(', ');
  if (!spec.hasId) {
    const { rows } = await client.query<Row>(
      `SELECT ${select} FROM "${spec.table}" t WHERE ${where}`,
      [realmId],
    );
    for (const row of rows) yield toRecord(spec, columns, row);
    return;
  }
  let after = 0;
  for (;;) {
    const { rows } = await client.query<Row>(
      `SELECT ${select} FROM "${spec.table}" t WHERE (${where}) AND t.id > $2
        ORDER BY t.id LIMIT ${PAGE}`,
      [realmId, after],
    );
    for (const row of rows) yield toRecord(spec, columns, row);
    if (rows.length < PAGE) return;
    after = at(rows, rows.length - 1).id as number;
  }
}

async function collect(it: AsyncIterable<Row>): Promise<Row[]> {
  const out: Row[] = [];
  for await (const row of it) out.push(row);
  return out;
}

/**
 * Writes one organization as Zulip's `manage.py export` does, into `file` (a .tar.gz holding
 * one directory): `realm.json` with every table but the messages, `messages-NNNNNN.json` with
 * 1,000 messages and their user_messages each, and `uploads/`, `avatars/`, `emoji/` each with a
 * `records.json`. Everything is read in one snapshot, and written as it is read: the
 * messages page by page, so memory does not grow with the organization.
 */
export async function exportRealm(
  ctx: AppContext,
  input: { realmId: number; file: string; scope?: ExportScope; progress?: ProgressReporter },
): Promise<ExportSummary> {
  const scope = scopeOf(input.scope ?? 'full');
  const progress = input.progress ?? noProgress;
  const work = await mkdtemp(path.join(os.tmpdir(), 'realm-export-'));
  const top = `zulip-export-${input.realmId}-${Date.now().toString(36)}`;
  const dir = path.join(work, top);
  await mkdir(dir);
  const client = await sqlPool(ctx).connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const realm = await client.query<{ id: number }>('SELECT id FROM realms WHERE id = $1', [
      input.realmId,
    ]);
    if (!realm.rows[0]) throw new Error(`no organization with id ${input.realmId}`);

    const counts = await writeRealmJson(ctx, client, input.realmId, dir, scope, progress);
    const messages = await writeMessages(
      client,
      input.realmId,
      dir,
      scope,
      progress,
      counts.messages,
    );
    const uploads = await writeFiles(ctx, client, input.realmId, dir, scope, progress);
    await client.query('COMMIT');

    await mkdir(path.dirname(path.resolve(input.file)), { recursive: true });
    progress({ stage: 'compress', done: 0 });
    await pipeline(
      tar.c({ gzip: true, cwd: work, portable: true }, [top]),
      createWriteStream(input.file),
    );
    const { size } = await import('node:fs/promises').then((fs) => fs.stat(input.file));
    progress({ stage: 'compress', done: 1, total: 1 });
    return {
      realmId: input.realmId,
      file: input.file,
      bytes: size,
      messages,
      users: counts.users,
      uploads,
    };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
    await rm(work, { recursive: true, force: true });
  }
}

/** Writes one table of realm.json; returns how many rows it holds. */
type TableWriter = (
  key: string,
  rows: Iterable<unknown> | AsyncIterable<unknown>,
) => Promise<number>;

async function writeRealmJson(
  ctx: AppContext,
  client: PoolClient,
  realmId: number,
  dir: string,
  scope: Scope,
  progress: ProgressReporter,
): Promise<{ users: number; messages: number }> {
  const out = new JsonWriter(path.join(dir, 'realm.json'));
  await out.write('{\n');
  let first = true;
  const table: TableWriter = async (key, rows) => {
    const n = await out.array(key, rows, first);
    first = false;
    progress({ stage: `realm.json ${key}`, done: n, total: n });
    return n;
  };

  for (const spec of [REALM, RECIPIENTS, STREAMS, DM_GROUPS]) {
    await table(spec.zulip, pagedRows(client, spec, await exportColumns(client, spec), realmId));
  }
  const users = await exportUsers(ctx, client, realmId);
  await table(USERS.zulip, users);
  await writeUserGroups(client, realmId, table);
  for (const spec of [...SIMPLE_TABLES, ...MESSAGE_CHILDREN]) {
    const columns = await exportColumns(client, spec);
    const rows = pagedRows(client, spec, columns, realmId, scopedWhere(spec, scope));
    if (spec.zulip === 'zerver_attachment') {
      await table(spec.zulip, await withAttachmentMessages(client, realmId, scope, rows));
    } else await table(spec.zulip, rows);
  }

  const clients = await client.query<{ id: number; name: string }>(
    `SELECT row_number() OVER (ORDER BY name)::int AS id, name
       FROM (SELECT DISTINCT sending_client_name AS name FROM messages WHERE realm_id = $1) c`,
    [realmId],
  );
  await table('zerver_client', clients.rows);
  await out.write('\n}\n');
  await out.close();
  const count = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM messages t WHERE t.realm_id = $1 AND ${scope.messages}`,
    [realmId],
  );
  return { users: users.length, messages: at(count.rows, 0).n };
}

/** The organization's users, each with its API key. */
async function exportUsers(ctx: AppContext, client: PoolClient, realmId: number): Promise<Row[]> {
  const users = await collect(
    pagedRows(client, USERS, await exportColumns(client, USERS), realmId),
  );
  const keys = await client.query<{ id: number; api_key_ciphertext: string }>(
    'SELECT id, api_key_ciphertext FROM users WHERE realm_id = $1',
    [realmId],
  );
  const cipher = new Map(keys.rows.map((r) => [r.id, r.api_key_ciphertext]));
  for (const user of users) {
    const stored = cipher.get(user.id as number);
    // Zulip's export carries each API key, so bots keep working after a move.
    user.api_key = stored ? decryptApiKey(stored, ctx.config.secretKey) : null;
  }
  return users;
}

/** Zulip keeps a group's name and settings in NamedUserGroup, its id in UserGroup. */
async function writeUserGroups(
  client: PoolClient,
  realmId: number,
  table: TableWriter,
): Promise<void> {
  const groups = await collect(
    pagedRows(client, USER_GROUPS, await exportColumns(client, USER_GROUPS), realmId),
  );
  await table(
    'zerver_usergroup',
    groups.map((g) => ({ id: g.id, realm: g.realm })),
  );
  await table(
    'zerver_namedusergroup',
    groups
      .filter((g) => g.named)
      .map((g) => {
        const named: Row = { usergroup_ptr: g.id, realm_for_sharding: g.realm };
        for (const [k, v] of Object.entries(g)) if (!NAMED_GROUP_FIELDS.has(k)) named[k] = v;
        return named;
      }),
  );
}

/** Zulip writes an attachment's messages as a list of ids in its row. */
async function withAttachmentMessages(
  client: PoolClient,
  realmId: number,
  scope: Scope,
  rows: AsyncIterable<Row>,
): Promise<Row[]> {
  const attachments = await collect(rows);
  const links = await client.query<{ attachment_id: number; message_id: number }>(
    `SELECT attachment_id, message_id FROM attachment_messages
      WHERE message_id IN (${scope.messageIds})`,
    [realmId],
  );
  const byAttachment = new Map<number, number[]>();
  for (const l of links.rows) {
    const list = byAttachment.get(l.attachment_id) ?? [];
    list.push(l.message_id);
    byAttachment.set(l.attachment_id, list);
  }
  return attachments.map((a) => ({
    ...a,
    messages: byAttachment.get(a.id as number) ?? [],
    scheduled_messages: [],
  }));
}

/**
 * Two cursors that read the messages and their user_messages once each, in message order, so a
 * page costs a FETCH rather than an index lookup planned anew. DECLARE takes no parameters: the
 * organization's id, an integer, is written in.
 */
async function declareMessageCursors(
  client: PoolClient,
  realmId: number,
  scope: Scope,
  columns: { select: string; umSelect: string },
): Promise<void> {
  const { select, umSelect } = columns;
  if (!Number.isInteger(realmId)) throw new Error(`not an organization id: ${realmId}`);
  const where = `t.realm_id = ${realmId} AND ${scope.messages.replace(/\$1\b/g, String(realmId))}`;
  await client.query(
    `DECLARE export_messages NO SCROLL CURSOR FOR
       SELECT ${select}, t.sending_client_name FROM messages t WHERE ${where} ORDER BY t.id`,
  );
  await client.query(
    `DECLARE export_user_messages NO SCROLL CURSOR FOR
       SELECT ${umSelect} FROM user_messages u JOIN messages t ON t.id = u.message_id
        WHERE ${where} ORDER BY u.message_id, u.id`,
  );
}

async function writeMessages(
  client: PoolClient,
  realmId: number,
  dir: string,
  scope: Scope,
  progress: ProgressReporter,
  total: number,
): Promise<number> {
  const messageColumns = await exportColumns(client, MESSAGES);
  const umColumns = await exportColumns(client, USER_MESSAGES);
  const clients = await client.query<{ id: number; name: string }>(
    `SELECT row_number() OVER (ORDER BY name)::int AS id, name
       FROM (SELECT DISTINCT sending_client_name AS name FROM messages WHERE realm_id = $1) c`,
    [realmId],
  );
  const clientIds = new Map(clients.rows.map((c) => [c.name, c.id]));
  const select = messageColumns.map((c) => exportExpression(c)).join(', ');
  const umSelect = umColumns.map((c) => exportExpression(c, 'u')).join(', ');
  await declareMessageCursors(client, realmId, scope, { select, umSelect });
  let pending: Row[] = [];
  let userMessagesLeft = true;
  /** The user_messages of messages up to `last`, from the cursor and what it gave ahead. */
  const userMessagesUpTo = async (last: number): Promise<Row[]> => {
    const out: Row[] = [];
    for (;;) {
      const past = pending.findIndex((r) => (r.message_id as number) > last);
      if (past >= 0) {
        out.push(...pending.slice(0, past));
        pending = pending.slice(past);
        return out;
      }
      out.push(...pending);
      pending = [];
      if (!userMessagesLeft) return out;
      const next = await client.query<Row>(
        `FETCH ${MESSAGES_PER_FILE * 4} FROM export_user_messages`,
      );
      if (next.rows.length === 0) userMessagesLeft = false;
      pending = next.rows;
    }
  };
  let fileNumber = 0;
  let done = 0;
  for (;;) {
    const { rows } = await client.query<Row>(`FETCH ${MESSAGES_PER_FILE} FROM export_messages`);
    if (rows.length === 0) break;
    const um = await userMessagesUpTo(at(rows, rows.length - 1).id as number);
    fileNumber += 1;
    const out = new JsonWriter(path.join(dir, messageFileName(fileNumber)));
    await out.write('{\n');
    await out.array(
      MESSAGES.zulip,
      rows.map((r) => ({
        ...toRecord(MESSAGES, messageColumns, r),
        sending_client: clientIds.get(r.sending_client_name as string) ?? null,
      })),
      true,
    );
    await out.array(
      USER_MESSAGES.zulip,
      um.map((r) => toRecord(USER_MESSAGES, umColumns, r)),
      false,
    );
    await out.write('\n}\n');
    await out.close();
    done += rows.length;
    progress({ stage: 'messages', done, total });
    if (rows.length < MESSAGES_PER_FILE) break;
  }
  await client.query('CLOSE export_messages; CLOSE export_user_messages');
  return done;
}

/** Where files are copied from and to, and for which organization. */
interface FileExport {
  store: ReturnType<typeof uploadStore>;
  client: PoolClient;
  realmId: number;
  dir: string;
}

/** Copies an object out of the store; its size, or null when the store lacks it. */
async function copyOut(
  store: FileExport['store'],
  key: string,
  file: string,
): Promise<number | null> {
  const object = await store.read(key);
  if (!object) return null;
  await mkdir(path.dirname(file), { recursive: true });
  await pipeline(object.body, createWriteStream(file));
  return object.length;
}

async function writeRecords(dir: string, records: Row[]): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'records.json'), JSON.stringify(records, null, 1));
}

/** Copies uploads, uploaded avatars and custom emoji out of the store, each with records.json. */
async function writeFiles(
  ctx: AppContext,
  client: PoolClient,
  realmId: number,
  dir: string,
  scope: Scope,
  progress: ProgressReporter,
): Promise<number> {
  const files: FileExport = { store: uploadStore(ctx.config), client, realmId, dir };
  const uploads = await writeUploads(files, scope, progress);
  await writeAvatars(files);
  await writeEmoji(files);
  return uploads;
}

async function writeUploads(
  { store, client, realmId, dir }: FileExport,
  scope: Scope,
  progress: ProgressReporter,
): Promise<number> {
  const uploads: Row[] = [];
  const attachments = await client.query<{
    id: number;
    path_id: string;
    owner_id: number;
    size: number;
    content_type: string | null;
    create_time: number;
  }>(
    `SELECT id, path_id, owner_id, size, content_type, extract(epoch FROM create_time)::float8 AS create_time
       FROM attachments t WHERE ${scope.attachments}
       ORDER BY id`,
    [realmId],
  );
  for (const a of attachments.rows) {
    const file = path.join(dir, 'uploads', a.path_id);
    const size = await copyOut(store, attachmentKey(a.path_id), file);
    if (size === null) continue;
    uploads.push({
      path: a.path_id,
      s3_path: a.path_id,
      realm_id: realmId,
      user_profile_id: a.owner_id,
      size,
      content_type: a.content_type,
      last_modified: a.create_time,
    });
    progress({ stage: 'uploads', done: uploads.length, total: attachments.rows.length });
  }
  await writeRecords(path.join(dir, 'uploads'), uploads);
  return uploads.length;
}

async function writeAvatars({ store, client, realmId, dir }: FileExport): Promise<void> {
  const avatars: Row[] = [];
  const users = await client.query<{ id: number; email: string }>(
    `SELECT id, email FROM users WHERE realm_id = $1 AND avatar_source = 'U' ORDER BY id`,
    [realmId],
  );
  for (const u of users.rows) {
    const keys = avatarKeys({ id: u.id, realmId });
    for (const key of [keys.small, keys.medium]) {
      if ((await copyOut(store, key, path.join(dir, 'avatars', key))) === null) continue;
      avatars.push({
        path: key,
        s3_path: key,
        realm_id: realmId,
        user_profile_id: u.id,
        user_profile_email: u.email,
      });
    }
  }
  await writeRecords(path.join(dir, 'avatars'), avatars);
}

async function writeEmoji({ store, client, realmId, dir }: FileExport): Promise<void> {
  const emoji: Row[] = [];
  const rows = await client.query<{
    id: number;
    file_name: string;
    author_id: number | null;
    name: string;
  }>(
    `SELECT id, file_name, author_id, name FROM realm_emoji
      WHERE realm_id = $1 AND file_name IS NOT NULL ORDER BY id`,
    [realmId],
  );
  for (const e of rows.rows) {
    const key = emojiImageKey(realmId, e.file_name);
    if ((await copyOut(store, key, path.join(dir, 'emoji', key))) === null) continue;
    emoji.push({
      path: key,
      s3_path: key,
      file_name: e.file_name,
      realm_id: realmId,
      user_profile_id: e.author_id,
      name: e.name,
    });
  }
  await writeRecords(path.join(dir, 'emoji'), emoji);
}
