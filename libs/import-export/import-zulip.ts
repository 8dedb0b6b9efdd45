import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { PoolClient } from 'pg';
import { chain } from 'stream-chain';
import { parser } from 'stream-json';
import { streamObject } from 'stream-json/streamers/StreamObject';
import { at } from '../core/at';
import type { AppContext } from '../core/context';
import { sqlPool } from '../db/sql';
import { attachmentKey } from '../domain/attachments/storage';
import { emojiImageKey } from '../domain/emoji/upload-realm-emoji';
import { huddleHash } from '../domain/messages/addressees';
import { checkSubdomain } from '../domain/realms/create-realm';
import { encryptApiKey, generateApiKey, hashApiKey } from '../domain/users/api-keys';
import { avatarKeys } from '../domain/users/set-avatar';
import { uploadStore } from '../storage/upload-store';
import { allocateIds, copyRows, type CopyValue } from './copy';
import { secondsToTimestamp, tableColumns, type Column } from './columns';
import { ImportError, type MissingReference } from './errors';
import { DeferredKeyChecks } from './key-checks';
import { noProgress, type ProgressReporter } from './progress';
import {
  DM_GROUPS,
  fieldName,
  MESSAGE_CHILDREN,
  MESSAGES,
  REALM,
  REALM_LATE_REFS,
  RECIPIENTS,
  SIMPLE_TABLES,
  STREAMS,
  USER_GROUPS,
  USER_LATE_REFS,
  USER_MESSAGES,
  USERS,
  type TableSpec,
} from './zulip-tables';

export interface ImportOptions {
  /** A directory holding realm.json (Zulip's export, unpacked, or a converter's output). */
  dir: string;
  subdomain: string;
  /** A record naming a user, channel or message the input lacks: skip it, or stop the import. */
  onMissing: 'skip' | 'stop';
  /** Set the read flag on every imported message (the converters do, as Zulip's do). */
  markRead?: boolean;
  progress?: ProgressReporter;
}

export interface ImportSummary {
  realmId: number;
  subdomain: string;
  users: number;
  channels: number;
  messages: number;
  userMessages: number;
  reactions: number;
  uploads: number;
  avatars: number;
  emoji: number;
  /** `table.field` -> records carrying a field this server does not keep. */
  ignoredFields: Record<string, number>;
  /** Records skipped for naming what the input lacks (first 100). */
  missing: MissingReference[];
  missingCount: number;
  /** Users given a new API key: theirs was missing, or already in use on this server. */
  newApiKeys: number;
}

type Row = Record<string, unknown>;
type Tables = Record<string, Row[]>;

/** Largest realm.json or messages file read; Zulip writes 1,000 messages per file. */
const MAX_JSON_FILE_BYTES = 1 << 30;
const MAX_REPORTED = 100;

/** Fields handled by hand, not by a column of the same name. */
const HANDLED_FIELDS: Record<string, string[]> = {
  zerver_userprofile: ['api_key'],
  zerver_attachment: ['messages', 'scheduled_messages'],
  zerver_message: ['sending_client'],
  zerver_usergroup: ['usergroup_ptr', 'realm_for_sharding'],
};

class IdMaps {
  private readonly maps = new Map<string, Map<number, number>>();
  set(table: string, from: number, to: number) {
    let map = this.maps.get(table);
    if (!map) this.maps.set(table, (map = new Map<number, number>()));
    map.set(from, to);
  }
  get(table: string, from: number): number | undefined {
    return this.maps.get(table)?.get(from);
  }
  has(table: string, from: number): boolean {
    return this.maps.get(table)?.has(from) ?? false;
  }
}

/** Reads realm.json table by table (streamed, so no one string holds the file). */
async function readRealmJson(dir: string): Promise<Tables> {
  const file = path.join(dir, 'realm.json');
  const info = await stat(file).catch(() => null);
  if (!info) throw new ImportError('realm.json', 'missing: this is not a Zulip export');
  if (info.size > MAX_JSON_FILE_BYTES) throw new ImportError('realm.json', 'larger than 1 GiB');
  const tables: Tables = {};
  const pipeline = chain([createReadStream(file), parser(), streamObject()]);
  try {
    for await (const { key, value } of pipeline as AsyncIterable<{ key: string; value: unknown }>) {
      if (!Array.isArray(value)) {
        // Zulip puts a few non-table values at the top level (export statistics).
        continue;
      }
      value.forEach((record, i) => {
        if (record === null || typeof record !== 'object' || Array.isArray(record)) {
          throw new ImportError('realm.json', 'not an object', `${key}[${i}]`);
        }
      });
      tables[key] = value as Row[];
    }
  } catch (err) {
    if (err instanceof ImportError) throw err;
    throw new ImportError('realm.json', `malformed JSON (${(err as Error).message})`);
  }
  return tables;
}

/** A messages file's two tables. */
interface MessageFile {
  messages: Row[];
  userMessages: Row[];
}

async function readMessageFile(dir: string, name: string): Promise<MessageFile> {
  const file = path.join(dir, name);
  const info = await stat(file);
  if (info.size > MAX_JSON_FILE_BYTES) throw new ImportError(name, 'larger than 1 GiB');
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new ImportError(name, `malformed JSON (${(err as Error).message})`);
  }
  if (!parsed || typeof parsed !== 'object') throw new ImportError(name, 'not a JSON object');
  const tables = parsed as Tables;
  const table = (key: string): Row[] => {
    const rows = tables[key] ?? [];
    if (!Array.isArray(rows)) throw new ImportError(name, `${key} is not a list`);
    rows.forEach((r, i) => {
      if (!r || typeof r !== 'object') throw new ImportError(name, 'not an object', `${key}[${i}]`);
    });
    return rows;
  };
  return { messages: table(MESSAGES.zulip), userMessages: table(USER_MESSAGES.zulip) };
}

/** A path from a records.json: relative, plain segments only. */
function safeRelative(file: string, record: string, p: unknown): string {
  if (typeof p !== 'string' || p === '' || path.isAbsolute(p) || p.split(/[\\/]/).includes('..')) {
    throw new ImportError(file, `unsafe path ${JSON.stringify(p)}`, record);
  }
  return p;
}

/**
 * Imports an organization from Zulip's export format into a new organization `subdomain`, in
 * one PostgreSQL transaction: either all of it is there, or none (a failed run leaves nothing
 * but the files it had stored, which it deletes). Rows get new ids from each table's own
 * sequence, so later rows continue past them; messages are loaded with COPY, 1,000 per file
 * as Zulip writes them, so memory stays flat whatever the number of messages.
 */
export async function importZulipExport(
  ctx: AppContext,
  options: ImportOptions,
): Promise<ImportSummary> {
  const subdomain = checkSubdomain(options.subdomain);
  const progress = options.progress ?? noProgress;
  const data = await readRealmJson(options.dir);
  const realms = data[REALM.zulip] ?? [];
  if (realms.length !== 1) {
    throw new ImportError('realm.json', `${REALM.zulip} must hold one organization`);
  }
  mergeNamedGroups(data);
  if (!data[USER_GROUPS.zulip]?.length) {
    throw new ImportError(
      'realm.json',
      'no zerver_usergroup: exports from Zulip before 5.0 are not supported',
    );
  }

  const stored: string[] = [];
  const client = await sqlPool(ctx).connect();
  try {
    await client.query('BEGIN');
    const run = new ImportRun(ctx, client, options, data, subdomain, progress);
    const summary = await run.execute(stored);
    await client.query('COMMIT');
    return summary;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    const store = uploadStore(ctx.config);
    for (const key of stored) await store.delete(key).catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * Adds each message row's search vector, computed by `helper` as the messages table's trigger
 * computes it, which then keeps it (migration 20261128163000_h45_import_search_vectors): the
 * vectors of one file are computed while the previous one is loaded.
 */
async function addSearchVectors(helper: PoolClient, prepared: PreparedRows): Promise<void> {
  if (prepared.rows.length === 0) return;
  const column = (name: string) => {
    const i = prepared.columns.indexOf(name);
    return prepared.rows.map((row) => {
      const value = i < 0 ? null : row[i];
      // NUL cannot be sent in a text parameter; COPY leaves it out of the row too.
      // eslint-disable-next-line no-control-regex
      return typeof value === 'string' ? value.replace(/\u0000/g, '') : null;
    });
  };
  const { rows } = await helper.query<{ v: string }>(
    `SELECT to_tsvector('english', coalesce(s, '') || ' ' || coalesce(c, ''))::text AS v
       FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(s, c, n) ORDER BY n`,
    [column('subject'), column('content')],
  );
  prepared.columns.push('search_tsv');
  prepared.rows.forEach((row, i) => row.push(at(rows, i).v));
}

/** Zulip keeps a named group's fields in zerver_namedusergroup, keyed by its UserGroup's id. */
function mergeNamedGroups(data: Tables) {
  const named = data.zerver_namedusergroup;
  if (!named) return;
  const byId = new Map((data[USER_GROUPS.zulip] ?? []).map((g) => [g.id as number, g]));
  for (const n of named) {
    const base = byId.get(n.usergroup_ptr as number);
    if (base) Object.assign(base, n, { id: base.id, named: true });
  }
  for (const g of byId.values()) if (g.named === undefined) g.named = false;
  delete data.zerver_namedusergroup;
}

class ImportRun {
  private readonly maps = new IdMaps();
  private readonly ignored: Record<string, number> = {};
  private readonly missing: MissingReference[] = [];
  private missingCount = 0;
  private readonly takenKeys = new Set<string>();
  private newKeys = 0;
  private realmId = 0;
  private oldRealmId = 0;
  private readonly columns = new Map<string, Column[]>();
  private clientNames: Map<number, string> | undefined;
  private recipientTypeById: Map<number, number> | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly client: PoolClient,
    private readonly options: ImportOptions,
    private readonly data: Tables,
    private readonly subdomain: string,
    private readonly progress: ProgressReporter,
  ) {}

  /** The organization's record (importZulipExport checked that realm.json holds one). */
  private get realm(): Row {
    return at(this.data[REALM.zulip] ?? [], 0);
  }

  private async columnsOf(table: string): Promise<Column[]> {
    let cols = this.columns.get(table);
    if (!cols) this.columns.set(table, (cols = await tableColumns(this.client, table)));
    return cols;
  }

  /** A record naming what the input lacks: reported, then skipped or fatal as asked. */
  private lacking(file: string, record: string, reason: string): null {
    if (this.options.onMissing === 'stop') throw new ImportError(file, reason, record);
    this.missingCount += 1;
    if (this.missing.length < MAX_REPORTED) this.missing.push({ file, record, reason });
    return null;
  }

  async execute(stored: string[]): Promise<ImportSummary> {
    const { client, data } = this;
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`import:${this.subdomain}`]);
    const taken = await client.query('SELECT 1 FROM realms WHERE string_id = $1', [this.subdomain]);
    if (taken.rowCount) {
      throw new ImportError('--subdomain', `an organization '${this.subdomain}' already exists`);
    }

    await this.allocateAllIds();
    await this.loadOrganizationTables();

    await client.query(
      'CREATE TEMP TABLE import_message_ids (old_id int PRIMARY KEY, new_id int NOT NULL) ON COMMIT DROP',
    );
    const { messages, userMessages } = await this.loadMessages();
    await client.query(
      `UPDATE streams s SET first_message_id =
         (SELECT min(m.id) FROM messages m WHERE m.recipient_id = s.recipient_id)
        WHERE s.realm_id = $1`,
      [this.realmId],
    );
    let reactions = 0;
    for (const spec of MESSAGE_CHILDREN) {
      const n = await this.loadViaMessageMap(spec, data[spec.zulip] ?? []);
      if (spec.zulip === 'zerver_reaction') reactions = n;
    }
    await this.loadAttachmentMessages();

    const files = await this.storeFiles(stored);
    this.progress({ stage: 'commit', done: 0 });
    return {
      realmId: this.realmId,
      subdomain: this.subdomain,
      users: (data[USERS.zulip] ?? []).length,
      channels: (data[STREAMS.zulip] ?? []).length,
      messages,
      userMessages,
      reactions,
      ...files,
      ignoredFields: this.ignored,
      missing: this.missing,
      missingCount: this.missingCount,
      newApiKeys: this.newKeys,
    };
  }

  /** Every id the tables point at, chosen before any row is written. */
  private async allocateAllIds(): Promise<void> {
    const { client, data } = this;
    for (const spec of [
      REALM,
      USERS,
      RECIPIENTS,
      STREAMS,
      USER_GROUPS,
      DM_GROUPS,
      ...SIMPLE_TABLES,
    ]) {
      if (!spec.hasId) continue;
      const records = data[spec.zulip] ?? [];
      const ids = await allocateIds(client, spec.table, records.length);
      records.forEach((r, i) => {
        if (typeof r.id !== 'number' || !Number.isInteger(r.id)) {
          throw new ImportError('realm.json', 'id is not an integer', `${spec.zulip}[${i}]`);
        }
        this.maps.set(spec.zulip, r.id, at(ids, i));
      });
    }
    this.oldRealmId = this.realm.id as number;
    this.realmId = this.maps.get(REALM.zulip, this.oldRealmId) as number;
  }

  /** The organization's tables but the messages and what points at them. */
  private async loadOrganizationTables(): Promise<void> {
    const { client, data } = this;
    const lateRealm: Record<string, number | null> = {};
    await this.load(REALM, [this.realm], {
      late: REALM_LATE_REFS,
      onLate: (_id, column, value) => (lateRealm[column] = value),
      computed: { string_id: () => this.subdomain },
    });
    await this.load(RECIPIENTS, data[RECIPIENTS.zulip] ?? [], {
      computed: { type_id: (r, i) => this.recipientTarget(r, i) },
    });
    await this.findTakenKeys();
    const lateUsers: [number, string, number][] = [];
    await this.load(USERS, data[USERS.zulip] ?? [], {
      late: USER_LATE_REFS,
      onLate: (id, column, value) => value !== null && lateUsers.push([id, column, value]),
      computed: {
        api_key_hash: (r) => hashApiKey(this.apiKey(r)),
        api_key_ciphertext: (r) => encryptApiKey(this.apiKey(r), this.ctx.config.secretKey),
      },
    });
    await this.load(USER_GROUPS, data[USER_GROUPS.zulip] ?? []);
    await this.load(STREAMS, data[STREAMS.zulip] ?? [], {
      computed: { first_message_id: () => null },
    });
    await this.load(DM_GROUPS, data[DM_GROUPS.zulip] ?? [], {
      computed: { huddle_hash: (r, i) => this.groupHash(r, i) },
    });
    for (const [column, value] of Object.entries(lateRealm)) {
      await client.query(`UPDATE realms SET "${column}" = $1 WHERE id = $2`, [value, this.realmId]);
    }
    for (const [id, column, value] of lateUsers) {
      await client.query(`UPDATE users SET "${column}" = $1 WHERE id = $2`, [value, id]);
    }
    for (const spec of SIMPLE_TABLES) {
      await this.load(spec, data[spec.zulip] ?? [], this.simpleHooks(spec));
    }
    if (!data.zerver_realmuserdefault?.length) {
      await client.query('INSERT INTO realm_user_defaults (realm_id) VALUES ($1)', [this.realmId]);
    }
    await client.query(
      'INSERT INTO presence_sequences (realm_id) VALUES ($1) ON CONFLICT DO NOTHING',
      [this.realmId],
    );
  }

  private apiKey(record: Row): string {
    const key = record.api_key;
    if (typeof key !== 'string' || key.length < 16 || this.takenKeys.has(hashApiKey(key))) {
      record.api_key = generateApiKey();
      this.newKeys += 1;
    }
    return record.api_key as string;
  }

  /** API keys this server already has (the same organization imported twice): those get new ones. */
  private async findTakenKeys(): Promise<void> {
    const hashes = (this.data[USERS.zulip] ?? [])
      .map((u) => u.api_key)
      .filter((k): k is string => typeof k === 'string')
      .map(hashApiKey);
    const { rows } = await this.client.query<{ h: string }>(
      'SELECT api_key_hash AS h FROM users WHERE api_key_hash = ANY($1)',
      [hashes],
    );
    for (const r of rows) this.takenKeys.add(r.h);
  }

  private recipientTarget(r: Row, i: number): number | null {
    const table =
      r.type === 1
        ? USERS.zulip
        : r.type === 2
          ? STREAMS.zulip
          : r.type === 3
            ? DM_GROUPS.zulip
            : null;
    const target = table ? this.maps.get(table, r.type_id as number) : undefined;
    if (target === undefined) {
      throw new ImportError(
        'realm.json',
        `names a missing recipient ${String(r.type_id)}`,
        `${RECIPIENTS.zulip}[${i}]`,
      );
    }
    return target;
  }

  /** A direct-message group's hash is over its members' ids, which the import renumbers. */
  private groupHash(r: Row, i: number): string {
    const members = (this.data.zerver_subscription ?? [])
      .filter((s) => s.recipient === r.recipient)
      .map((s) => this.maps.get(USERS.zulip, s.user_profile as number))
      .filter((id): id is number => id !== undefined);
    if (members.length === 0) {
      throw new ImportError(
        'realm.json',
        'a direct-message group without members',
        `${DM_GROUPS.zulip}[${i}]`,
      );
    }
    return huddleHash(members);
  }

  private simpleHooks(spec: TableSpec): LoadHooks {
    if (spec.zulip === 'zerver_attachment') {
      return {
        computed: {
          path_id: (r, i) =>
            this.newPathId(safeRelative('realm.json', `zerver_attachment[${i}]`, r.path_id)),
        },
      };
    }
    if (spec.zulip === 'zerver_customprofilefieldvalue') {
      // A "user" field's value lists user ids, which the import renumbers.
      const userFields = new Set(
        (this.data.zerver_customprofilefield ?? [])
          .filter((f) => (f.field_type ?? f.type) === 6)
          .map((f) => f.id),
      );
      return {
        transform: (r) => {
          if (!userFields.has(r.field) || typeof r.value !== 'string') return;
          try {
            const ids = JSON.parse(r.value) as number[];
            r.value = JSON.stringify(
              ids.map((id) => this.maps.get(USERS.zulip, id)).filter(Boolean),
            );
          } catch {
            // A value that is not a list stays as written.
          }
        },
      };
    }
    return {};
  }

  /** `<old realm id>/<random>/<name>` becomes `<new realm id>/<random>/<name>`. */
  private newPathId(pathId: string): string {
    const [, ...rest] = pathId.split('/');
    return [String(this.realmId), ...rest].join('/');
  }

  /**
   * Message text links uploads and custom emoji images by path, whose first segment is the
   * organization's id.
   */
  private rewriteLinks(text: unknown): unknown {
    if (typeof text !== 'string' || this.oldRealmId === this.realmId) return text;
    let out = text;
    for (const root of ['/user_uploads/', '/user_avatars/']) {
      const from = `${root}${this.oldRealmId}/`;
      if (out.includes(from)) out = out.split(from).join(`${root}${this.realmId}/`);
    }
    return out;
  }

  /**
   * Rendered HTML names users, groups and channels by id (mentions, channel links), which the
   * import renumbers; an id the input lacks stays as written.
   */
  private remapRendered(html: unknown): unknown {
    if (typeof html !== 'string' || !html.includes('data-')) return html;
    const swap = (table: string) => (whole: string, prefix: string, id: string) => {
      const mapped = this.maps.get(table, Number(id));
      return mapped === undefined ? whole : `${prefix}${mapped}`;
    };
    return html
      .replace(/(data-user-id=")(\d+)/g, swap(USERS.zulip))
      .replace(/(data-user-group-id=")(\d+)/g, swap(USER_GROUPS.zulip))
      .replace(/(data-stream-id="|\/#narrow\/channel\/)(\d+)/g, swap(STREAMS.zulip));
  }

  /** Loads a table's records with COPY, remapping ids and references; returns rows written. */
  private async load(spec: TableSpec, records: Row[], hooks: LoadHooks = {}): Promise<number> {
    const prepared = await this.prepare(spec, records, hooks, 'realm.json');
    const written = await this.copy(prepared);
    if (records.length > 0) {
      this.progress({ stage: spec.zulip, done: written, total: records.length });
    }
    return written;
  }

  /** A table's records as the rows to COPY, ids and references remapped. */
  private async prepare(
    spec: TableSpec,
    records: Row[],
    hooks: LoadHooks,
    file: string,
  ): Promise<PreparedRows> {
    const [sample] = records;
    if (sample === undefined) return { spec, file, columns: [], rows: [] };
    const plan = await this.plan(spec, sample);
    this.countIgnored(spec, records, plan);
    const rows: CopyValue[][] = [];
    records.forEach((r, i) => {
      const row = this.row(spec, plan, r, `${spec.zulip}[${i}]`, file, hooks, i);
      if (row) rows.push(row);
    });
    return { spec, file, columns: plan.map((p) => p.column.name), rows };
  }

  private async copy({ spec, file, columns, rows }: PreparedRows): Promise<number> {
    if (rows.length === 0) return 0;
    try {
      return await copyRows(this.client, spec.table, columns, rows);
    } catch (err) {
      throw new ImportError(file, `cannot load ${spec.zulip}: ${(err as Error).message}`);
    }
  }

  /** Which columns a table's records fill, and from which field. */
  private async plan(spec: TableSpec, sample: Row): Promise<Planned[]> {
    const omit = new Set((spec.omit ?? []).filter((c) => !spec.computed?.includes(c)));
    const planned: Planned[] = [];
    for (const column of await this.columnsOf(spec.table)) {
      if (omit.has(column.name) || column.type === 'other') continue;
      if (column.name === 'id') {
        if (spec.hasId) planned.push({ column, keys: ['id'], kind: 'id' });
        continue;
      }
      if (spec.computed?.includes(column.name)) {
        planned.push({ column, keys: [fieldName(spec, column.name)], kind: 'computed' });
        continue;
      }
      const keys = [fieldName(spec, column.name), ...(spec.aliases?.[column.name] ?? [])];
      if (!keys.some((k) => k in sample)) continue;
      const target = spec.refs[column.name];
      planned.push(
        target === undefined
          ? { column, keys, kind: 'value' }
          : { column, keys, kind: 'ref', target },
      );
    }
    return planned;
  }

  private countIgnored(spec: TableSpec, records: Row[], plan: Planned[]) {
    const known = new Set([
      ...plan.flatMap((p) => p.keys),
      ...(HANDLED_FIELDS[spec.zulip] ?? []),
      // Fields of ours this input left out are not unknown; neither are the ones we never keep.
      ...(spec.omit ?? []).map((c) => fieldName(spec, c)),
    ]);
    for (const r of records) {
      for (const key of Object.keys(r)) {
        if (!known.has(key)) {
          const name = `${spec.zulip}.${key}`;
          this.ignored[name] = (this.ignored[name] ?? 0) + 1;
        }
      }
    }
  }

  private row(
    spec: TableSpec,
    plan: Planned[],
    r: Row,
    label: string,
    file: string,
    hooks: LoadHooks,
    index: number,
  ): CopyValue[] | null {
    hooks.transform?.(r);
    const values: CopyValue[] = [];
    const ownIds = hooks.local?.[spec.zulip];
    const newId = !spec.hasId
      ? null
      : hooks.keep?.has(spec.zulip)
        ? (r.id as number)
        : ((ownIds ? ownIds.get(r.id as number) : this.maps.get(spec.zulip, r.id as number)) ??
          null);
    for (const p of plan) {
      const name = p.column.name;
      if (p.kind === 'id') {
        values.push(newId);
        continue;
      }
      if (p.kind === 'computed') {
        values.push(hooks.computed?.[name]?.(r, index) ?? null);
        continue;
      }
      const raw = p.keys.map((k) => r[k]).find((v) => v !== undefined);
      if (p.kind === 'ref') {
        if (raw === null || raw === undefined) {
          values.push(null);
          continue;
        }
        const { target } = p;
        const local = hooks.local?.[target];
        const mapped = hooks.keep?.has(target)
          ? (raw as number)
          : local
            ? local.get(raw as number)
            : this.maps.get(target, raw as number);
        if (hooks.late && name in hooks.late) {
          hooks.onLate?.(newId as number, name, mapped ?? null);
          values.push(null);
          continue;
        }
        if (mapped === undefined) {
          return this.lacking(
            file,
            label,
            `${fieldName(spec, name)} names a missing ${target} ${JSON.stringify(raw)}`,
          );
        }
        values.push(mapped);
        continue;
      }
      values.push(this.coerce(p.column, raw, file, label));
    }
    return values;
  }

  private coerce(column: Column, raw: unknown, file: string, label: string): CopyValue {
    if (raw === null || raw === undefined) return null;
    const bad = () =>
      new ImportError(file, `${column.name} is not ${column.type}: ${JSON.stringify(raw)}`, label);
    switch (column.type) {
      case 'timestamp':
        if (typeof raw === 'number' && Number.isFinite(raw)) return secondsToTimestamp(raw);
        if (typeof raw === 'string' && !Number.isNaN(Date.parse(raw))) return raw;
        throw bad();
      case 'json':
        if (typeof raw === 'string') {
          try {
            JSON.parse(raw);
          } catch {
            throw bad();
          }
          return raw;
        }
        return JSON.stringify(raw);
      case 'boolean':
        if (typeof raw === 'boolean') return raw;
        if (raw === 0 || raw === 1) return raw === 1;
        throw bad();
      case 'integer':
      case 'bigint':
        if (typeof raw === 'number' && Number.isInteger(raw)) return raw;
        throw bad();
      default:
        if (typeof raw === 'string') return raw;
        if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
        throw bad();
    }
  }

  /**
   * The messages files, each loaded with COPY while the next is read and prepared, its ids and
   * search vectors taken on a second connection: PostgreSQL's work is shared by two processes
   * and the import's own overlaps it.
   */
  private async loadMessages(): Promise<{ messages: number; userMessages: number }> {
    const files = (await readdir(this.options.dir))
      .filter((f) => /^messages-\d+\.json$/.test(f))
      .sort();
    const helper = await sqlPool(this.ctx).connect();
    const prepare = (n: number) => {
      const name = files[n];
      const prepared = name === undefined ? null : this.prepareMessages(name, helper);
      // Awaited in its turn; a failure before then is not an unhandled rejection.
      prepared?.catch(() => undefined);
      return prepared;
    };
    const keys = await DeferredKeyChecks.start(this.client);
    let next = prepare(0);
    let messages = 0;
    let userMessages = 0;
    try {
      for (let n = 0; next; n++) {
        const file = await next;
        next = prepare(n + 1);
        for (const rows of [file.messages, file.userMessages]) keys.note(rows.columns, rows.rows);
        messages += await this.copy(file.messages);
        await copyRows(this.client, 'import_message_ids', ['old_id', 'new_id'], file.ids);
        userMessages += await this.copy(file.userMessages);
        this.progress({ stage: 'messages', done: n + 1, total: files.length });
      }
      await keys.finish(this.client, 'import_message_ids');
    } finally {
      await next?.catch(() => undefined);
      helper.release();
    }
    return { messages, userMessages };
  }

  /**
   * A messages file read, checked and turned into rows, its messages given new ids and search
   * vectors (by `helper`, another connection).
   */
  private async prepareMessages(name: string, helper: PoolClient): Promise<PreparedMessages> {
    const file = await readMessageFile(this.options.dir, name);
    const records = file.messages;
    records.forEach((r, i) => {
      if (typeof r.id !== 'number' || !Number.isInteger(r.id)) {
        throw new ImportError(name, 'id is not an integer', `${MESSAGES.zulip}[${i}]`);
      }
    });
    const ids = await allocateIds(helper, MESSAGES.table, records.length);
    const local = new Map<number, number>();
    records.forEach((r, i) => local.set(r.id as number, at(ids, i)));
    for (const r of records) {
      r.content = this.rewriteLinks(r.content);
      r.rendered_content = this.remapRendered(this.rewriteLinks(r.rendered_content));
      if (r.is_channel_message === undefined) {
        r.is_channel_message = this.recipientTypes.get(r.recipient as number) === 2;
      }
    }
    const messages = await this.prepare(
      MESSAGES,
      records,
      {
        local: { [MESSAGES.zulip]: local },
        computed: {
          sending_client_name: (r) => this.clients.get(r.sending_client as number) ?? '',
        },
      },
      name,
    );
    await addSearchVectors(helper, messages);
    const loaded = records.filter((r) => this.messageLoaded(r));
    // A skipped message's rows go with it (the message was reported once already).
    const kept = new Set(loaded.map((r) => r.id as number));
    const um = file.userMessages.filter((r) => kept.has(r.message as number));
    if (this.options.markRead) {
      for (const r of um) r.flags_mask = Number(r.flags_mask ?? r.flags ?? 0) | 1;
    }
    return {
      messages,
      ids: loaded.map((r) => [r.id as number, local.get(r.id as number) as number]),
      userMessages: await this.prepare(
        USER_MESSAGES,
        um,
        { local: { [MESSAGES.zulip]: local } },
        name,
      ),
    };
  }

  private get clients(): Map<number, string> {
    this.clientNames ??= new Map(
      (this.data.zerver_client ?? []).map((c) => [
        c.id as number,
        typeof c.name === 'string' ? c.name : '',
      ]),
    );
    return this.clientNames;
  }

  private get recipientTypes(): Map<number, number> {
    this.recipientTypeById ??= new Map(
      (this.data[RECIPIENTS.zulip] ?? []).map((r) => [r.id as number, r.type as number]),
    );
    return this.recipientTypeById;
  }

  /** Whether a message row was written (not skipped for a missing sender or recipient). */
  private messageLoaded(r: Row): boolean {
    return (
      this.maps.has(USERS.zulip, r.sender as number) &&
      this.maps.has(RECIPIENTS.zulip, r.recipient as number)
    );
  }

  /**
   * Rows pointing at messages go through a temporary table and one INSERT ... SELECT joined to
   * the message id map, which lives in PostgreSQL rather than in this process.
   */
  private async loadViaMessageMap(spec: TableSpec, records: Row[]): Promise<number> {
    const [sample] = records;
    if (sample === undefined) return 0;
    const staging = `import_${spec.table}`;
    await this.client.query(
      `CREATE TEMP TABLE ${staging} (LIKE "${spec.table}" INCLUDING DEFAULTS) ON COMMIT DROP`,
    );
    const plan = await this.plan(spec, sample);
    this.countIgnored(spec, records, plan);
    // The message reference is kept as written, to be joined against the map.
    const hooks: LoadHooks = {
      keep: new Set([MESSAGES.zulip, spec.zulip]),
      // A reaction with a custom emoji names the emoji by id, which the import renumbers.
      transform: (r) => {
        if (r.reaction_type !== 'realm_emoji') return;
        const id = this.maps.get('zerver_realmemoji', Number(r.emoji_code));
        if (id !== undefined) r.emoji_code = String(id);
      },
    };
    const rows: CopyValue[][] = [];
    records.forEach((r, i) => {
      const row = this.row(spec, plan, r, `${spec.zulip}[${i}]`, 'realm.json', hooks, i);
      if (row) rows.push(row);
    });
    await copyRows(
      this.client,
      staging,
      plan.map((p) => p.column.name),
      rows,
    );
    const cols = plan.map((p) => p.column.name).filter((c) => c !== 'id');
    const lost = await this.client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${staging} s
        LEFT JOIN import_message_ids m ON m.old_id = s.message_id WHERE m.new_id IS NULL`,
    );
    const lostCount = at(lost.rows, 0).n;
    for (let i = 0; i < lostCount; i++) {
      this.lacking('realm.json', spec.zulip, 'names a message the export lacks');
    }
    const select = cols.map((c) => (c === 'message_id' ? 'm.new_id' : `s."${c}"`)).join(', ');
    const inserted = await this.client.query(
      `INSERT INTO "${spec.table}" (${cols.map((c) => `"${c}"`).join(', ')})
       SELECT ${select} FROM ${staging} s JOIN import_message_ids m ON m.old_id = s.message_id
       ORDER BY s.id`,
    );
    this.progress({ stage: spec.zulip, done: inserted.rowCount ?? 0 });
    return inserted.rowCount ?? 0;
  }

  private async loadAttachmentMessages(): Promise<void> {
    await this.client.query(
      'CREATE TEMP TABLE import_attachment_messages (attachment_id int, message_id int) ON COMMIT DROP',
    );
    const pairs: [number, number][] = [];
    for (const a of this.data.zerver_attachment ?? []) {
      const id = this.maps.get('zerver_attachment', a.id as number);
      if (id === undefined || !Array.isArray(a.messages)) continue;
      for (const m of a.messages) if (typeof m === 'number') pairs.push([id, m]);
    }
    await copyRows(
      this.client,
      'import_attachment_messages',
      ['attachment_id', 'message_id'],
      pairs,
    );
    await this.client.query(
      `INSERT INTO attachment_messages (attachment_id, message_id)
       SELECT DISTINCT s.attachment_id, m.new_id FROM import_attachment_messages s
         JOIN import_message_ids m ON m.old_id = s.message_id`,
    );
  }

  /** Puts uploads, avatars and emoji images into the upload store under their new keys. */
  private async storeFiles(stored: string[]) {
    const store = uploadStore(this.ctx.config);
    const dir = this.options.dir;
    const records = async (sub: string): Promise<Row[]> => {
      const file = path.join(dir, sub, 'records.json');
      const text = await readFile(file, 'utf8').catch(() => null);
      if (text === null) return [];
      try {
        const list = JSON.parse(text) as unknown;
        if (!Array.isArray(list)) throw new Error('not a list');
        return list as Row[];
      } catch (err) {
        throw new ImportError(`${sub}/records.json`, `malformed JSON (${(err as Error).message})`);
      }
    };
    const put = async (sub: string, rel: string, key: string, contentType: string | null) => {
      const source = path.join(dir, sub, rel);
      if (!(await stat(source).catch(() => null))) return false;
      await store.putFile(key, source, contentType, { keepSource: true });
      stored.push(key);
      return true;
    };

    const attachmentTypes = new Map(
      (this.data.zerver_attachment ?? []).map((a) => [
        a.path_id as string,
        (a.content_type as string | null) ?? null,
      ]),
    );
    let uploads = 0;
    const uploadRecords = await records('uploads');
    for (const [i, r] of uploadRecords.entries()) {
      const rel = safeRelative('uploads/records.json', `[${i}]`, r.path);
      if (!attachmentTypes.has(rel)) continue;
      const key = attachmentKey(this.newPathId(rel));
      if (await put('uploads', rel, key, attachmentTypes.get(rel) ?? null)) uploads += 1;
      this.progress({ stage: 'uploads', done: i + 1, total: uploadRecords.length });
    }

    let avatars = 0;
    for (const [i, r] of (await records('avatars')).entries()) {
      const rel = safeRelative('avatars/records.json', `[${i}]`, r.path);
      const userId = this.maps.get(USERS.zulip, r.user_profile_id as number);
      if (userId === undefined || rel.endsWith('.original')) continue;
      const keys = avatarKeys({ id: userId, realmId: this.realmId });
      const key = rel.endsWith('-medium.png') ? keys.medium : keys.small;
      if (await put('avatars', rel, key, 'image/png')) avatars += 1;
    }

    let emoji = 0;
    for (const [i, r] of (await records('emoji')).entries()) {
      const rel = safeRelative('emoji/records.json', `[${i}]`, r.path);
      const fileName = safeRelative('emoji/records.json', `[${i}]`, r.file_name);
      if (await put('emoji', rel, emojiImageKey(this.realmId, fileName), null)) emoji += 1;
    }
    return { uploads, avatars, emoji };
  }
}

interface PreparedRows {
  spec: TableSpec;
  /** The input file, for errors. */
  file: string;
  columns: string[];
  rows: CopyValue[][];
}

interface PreparedMessages {
  messages: PreparedRows;
  /** Old and new ids of the messages written (the map the later tables join against). */
  ids: [number, number][];
  userMessages: PreparedRows;
}

/** A column a table's records fill, and from which fields; a reference, from which table's ids. */
type Planned = { column: Column; keys: string[] } & (
  { kind: 'id' | 'computed' | 'value' } | { kind: 'ref'; target: string }
);

interface LoadHooks {
  computed?: Record<string, (record: Row, index: number) => unknown>;
  /** References filled in after the rows they name are written. */
  late?: Record<string, string>;
  onLate?: (newId: number, column: string, value: number | null) => void;
  transform?: (record: Row) => void;
  /** Reference targets whose ids are written as they are (resolved later in SQL). */
  keep?: Set<string>;
  /** Id maps for one file (a messages file's messages), instead of the run's. */
  local?: Record<string, Map<number, number>>;
}
