/**
 * Reads prisma/schema.prisma (with @mrleebo/prisma-ast) into a small,
 * database-oriented description: tables, columns, primary keys, unique
 * constraints, indexes and foreign keys, with the names `prisma migrate`
 * would give them. Used by the schema test (and handy for tooling).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Attribute, BlockAttribute, Field, Model, Schema, Value } from '@mrleebo/prisma-ast';

export interface ColumnInfo {
  field: string;
  column: string;
  /** Prisma type, or `Unsupported(<db type>)`. */
  prismaType: string;
  optional: boolean;
  /** PostgreSQL type as Prisma would declare it, e.g. `INTEGER`, `TIMESTAMPTZ(6)`, `tsvector`. */
  sqlType: string;
  /** SQL DEFAULT expression, or null. */
  sqlDefault: string | null;
  autoincrement: boolean;
}

export interface ForeignKeyInfo {
  field: string;
  name: string;
  columns: string[];
  referencedModel: string;
  referencedTable: string;
  referencedColumns: string[];
  /** SQL actions: CASCADE, RESTRICT, SET NULL, NO ACTION, SET DEFAULT. */
  onDelete: string;
  onUpdate: string;
}

export interface IndexInfo {
  name: string;
  columns: string[];
}

export interface ModelInfo {
  name: string;
  table: string;
  columns: ColumnInfo[];
  primaryKey: IndexInfo;
  uniques: IndexInfo[];
  indexes: IndexInfo[];
  foreignKeys: ForeignKeyInfo[];
}

/** PostgreSQL's identifier limit; Prisma truncates default names to fit. */
const MAX_IDENTIFIER = 63;

/** Prisma's default constraint/index name: `<table>_<cols>_<suffix>`, truncated to 63 characters. */
export function defaultConstraintName(
  table: string,
  columns: string[],
  suffix: 'pkey' | 'key' | 'idx' | 'fkey',
): string {
  const tail = `_${suffix}`;
  let base = suffix === 'pkey' ? table : [table, ...columns].join('_');
  if (base.length > MAX_IDENTIFIER - tail.length)
    base = base.slice(0, MAX_IDENTIFIER - tail.length);
  return base + tail;
}

const REPO_ROOT = path.resolve(__dirname, '../..');

export function defaultSchemaPath(): string {
  return path.join(REPO_ROOT, 'prisma/schema.prisma');
}

/**
 * Parses with @mrleebo/prisma-ast in a child Node process: the parser depends
 * on chevrotain, which is ESM-only, and jest's CommonJS runtime cannot load it
 * (plain Node >= 20.19 can, through require(esm)).
 */
export function getSchemaAst(source: string): Schema {
  const script =
    "const {getSchema}=require('@mrleebo/prisma-ast');" +
    "process.stdout.write(JSON.stringify(getSchema(require('fs').readFileSync(0,'utf8'))));";
  const out = execFileSync(process.execPath, ['--no-warnings', '-e', script], {
    cwd: REPO_ROOT,
    input: source,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out) as Schema;
}

const unquote = (v: unknown): string => {
  if (typeof v !== 'string') throw new Error(`expected a string literal, got ${JSON.stringify(v)}`);
  return v.startsWith('"') && v.endsWith('"') ? (JSON.parse(v) as string) : v;
};

function attr(field: Field, name: string, group?: string): Attribute | undefined {
  return field.attributes?.find((a) => a.name === name && (group ? a.group === group : !a.group));
}

function keyArg(args: { value: unknown }[] | undefined, key: string): Value | undefined {
  for (const a of args ?? []) {
    const v = a.value as { type?: string; key?: string; value?: Value };
    if (v && typeof v === 'object' && v.type === 'keyValue' && v.key === key) return v.value;
  }
  return undefined;
}

function positionalArg(args: { value: unknown }[] | undefined): unknown {
  for (const a of args ?? []) {
    const v = a.value as { type?: string };
    if (!(v && typeof v === 'object' && v.type === 'keyValue')) return a.value;
  }
  return undefined;
}

function arrayArg(v: unknown): string[] {
  const arr = v as { type?: string; args?: unknown[] };
  if (!arr || arr.type !== 'array') throw new Error(`expected an array, got ${JSON.stringify(v)}`);
  return (arr.args ?? []).map((x) => {
    // `field(sort: Desc)` style entries are functions; take the field name.
    if (x && typeof x === 'object' && (x as { type?: string }).type === 'function')
      return (x as { name: string }).name;
    return String(x);
  });
}

const ACTIONS: Record<string, string> = {
  Cascade: 'CASCADE',
  Restrict: 'RESTRICT',
  NoAction: 'NO ACTION',
  SetNull: 'SET NULL',
  SetDefault: 'SET DEFAULT',
};

/** The SQL of a relation's `onDelete` or `onUpdate` argument. */
function action(arg: Value): string {
  const sql = ACTIONS[String(arg)];
  if (!sql) throw new Error(`unknown referential action ${String(arg)}`);
  return sql;
}

function sqlLiteral(v: string): string {
  return `'${v.replace(/'/g, "''")}'`;
}

function columnOf(field: Field): ColumnInfo {
  const map = attr(field, 'map');
  const column = map ? unquote(positionalArg(map.args)) : field.name;
  let prismaType: string;
  let sqlType: string;
  if (typeof field.fieldType === 'object') {
    if (field.fieldType.name !== 'Unsupported')
      throw new Error(`unexpected field type on ${field.name}`);
    const dbType = unquote(field.fieldType.params?.[0]);
    prismaType = `Unsupported(${dbType})`;
    sqlType = dbType;
  } else {
    prismaType = field.fieldType;
    const native = field.attributes?.find((a) => a.group === 'db');
    if (native) {
      const params = (native.args ?? []).map((a) => String(a.value));
      sqlType = native.name.toUpperCase() + (params.length ? `(${params.join(',')})` : '');
    } else {
      const scalar = (
        {
          Int: 'INTEGER',
          BigInt: 'BIGINT',
          String: 'TEXT',
          Boolean: 'BOOLEAN',
          DateTime: 'TIMESTAMP(3)',
          Json: 'JSONB',
          Float: 'DOUBLE PRECISION',
          Decimal: 'DECIMAL(65,30)',
          Bytes: 'BYTEA',
        } as Record<string, string>
      )[prismaType];
      if (!scalar) throw new Error(`unknown scalar type ${prismaType} on ${field.name}`);
      sqlType = scalar;
    }
  }
  let sqlDefault: string | null = null;
  let autoincrement = false;
  const def = attr(field, 'default');
  if (def) {
    const v = positionalArg(def.args) as Value;
    if (v && typeof v === 'object' && (v as { type?: string }).type === 'function') {
      const fn = (v as { name: string }).name;
      if (fn === 'autoincrement') autoincrement = true;
      else if (fn === 'now') sqlDefault = 'CURRENT_TIMESTAMP';
      else if (fn === 'dbgenerated') {
        const expression = (v as { params?: unknown[] }).params?.[0];
        sqlDefault = typeof expression === 'string' ? unquote(expression) : 'dbgenerated';
      } else throw new Error(`unsupported default function ${fn}() on ${field.name}`);
    } else if (typeof v === 'string' && v.startsWith('"')) {
      sqlDefault = sqlLiteral(unquote(v));
    } else {
      sqlDefault = String(v);
    }
  }
  // A scalar list (`String[]`) is an array column, which Prisma's migrations leave nullable.
  const list = field.array === true;
  return {
    field: field.name,
    column,
    prismaType,
    optional: !!field.optional || list,
    sqlType: list ? `${sqlType}[]` : sqlType,
    sqlDefault,
    autoincrement,
  };
}

export function parseSchema(
  source: string = fs.readFileSync(defaultSchemaPath(), 'utf8'),
): ModelInfo[] {
  const schema = getSchemaAst(source);
  const models = schema.list.filter((b): b is Model => b.type === 'model');
  const modelNames = new Set(models.map((m) => m.name));
  const tables = new Map(models.map((m) => [m.name, tableOf(m)]));
  const columnsByModel = new Map<string, Map<string, ColumnInfo>>();
  for (const m of models) {
    const cols = new Map<string, ColumnInfo>();
    for (const p of m.properties) {
      if (p.type !== 'field') continue;
      const t = typeof p.fieldType === 'string' ? p.fieldType : p.fieldType.name;
      if (modelNames.has(t)) continue;
      cols.set(p.name, columnOf(p));
    }
    columnsByModel.set(m.name, cols);
  }
  const all: SchemaModels = { models, tables, columnsByModel };
  return models.map((m) => modelInfo(all, m));
}

/** A schema's models, with their tables and scalar columns, for looking relations up. */
interface SchemaModels {
  models: Model[];
  tables: Map<string, string>;
  columnsByModel: Map<string, Map<string, ColumnInfo>>;
}

/** One model's table, as the fields, indexes and keys of its columns. */
interface ModelTable {
  model: string;
  table: string;
  cols: Map<string, ColumnInfo>;
}

function tableOf(m: Model): string {
  const map = m.properties.find(
    (p): p is BlockAttribute => p.type === 'attribute' && p.name === 'map',
  );
  return map ? unquote(positionalArg(map.args)) : m.name;
}

function columnNames({ model, cols }: ModelTable, fields: string[]): string[] {
  return fields.map((f) => {
    const c = cols.get(f);
    if (!c) throw new Error(`${model}: unknown field ${f}`);
    return c.column;
  });
}

/** An index or key on `columns`, by its `map:` name or the one Prisma gives it. */
function named(
  { table }: ModelTable,
  attribute: { args?: { value: unknown }[] },
  columns: string[],
  suffix: 'pkey' | 'key' | 'idx',
): IndexInfo {
  const explicit = keyArg(attribute.args, 'map');
  return {
    name: explicit ? unquote(explicit) : defaultConstraintName(table, columns, suffix),
    columns,
  };
}

function modelInfo(all: SchemaModels, m: Model): ModelInfo {
  const own: ModelTable = {
    model: m.name,
    table: all.tables.get(m.name)!,
    cols: all.columnsByModel.get(m.name)!,
  };
  let primaryKey: IndexInfo | undefined;
  const uniques: IndexInfo[] = [];
  const indexes: IndexInfo[] = [];
  const foreignKeys: ForeignKeyInfo[] = [];

  for (const p of m.properties) {
    if (p.type === 'field') {
      const id = attr(p, 'id');
      if (id) primaryKey = named(own, id, columnNames(own, [p.name]), 'pkey');
      const unique = attr(p, 'unique');
      if (unique) uniques.push(named(own, unique, columnNames(own, [p.name]), 'key'));
      const foreignKey = foreignKeyOf(all, own, p);
      if (foreignKey) foreignKeys.push(foreignKey);
    } else if (p.type === 'attribute' && p.kind === 'object') {
      const columns = () => columnNames(own, arrayArg(positionalArg(p.args)));
      if (p.name === 'id') primaryKey = named(own, p, columns(), 'pkey');
      if (p.name === 'unique') uniques.push(named(own, p, columns(), 'key'));
      if (p.name === 'index') indexes.push(named(own, p, columns(), 'idx'));
    }
  }
  if (!primaryKey) throw new Error(`${m.name} has no primary key`);
  return {
    name: m.name,
    table: own.table,
    columns: [...own.cols.values()],
    primaryKey,
    uniques,
    indexes,
    foreignKeys,
  };
}

/** The foreign key a relation field declares with `fields:`; null for other fields. */
function foreignKeyOf(all: SchemaModels, own: ModelTable, p: Field): ForeignKeyInfo | null {
  const rel = attr(p, 'relation');
  const fields = rel && keyArg(rel.args, 'fields');
  if (!rel || !fields) return null;
  const target = typeof p.fieldType === 'string' ? p.fieldType : p.fieldType.name;
  const targetModel = all.models.find((x) => x.name === target)!;
  const targetCols = all.columnsByModel.get(target)!;
  const columns = columnNames(own, arrayArg(fields));
  const refs = arrayArg(keyArg(rel.args, 'references')).map((f) => targetCols.get(f)!.column);
  const onDeleteArg = keyArg(rel.args, 'onDelete');
  const onUpdateArg = keyArg(rel.args, 'onUpdate');
  const allRequired = arrayArg(fields).every((f) => !own.cols.get(f)!.optional);
  const explicit = keyArg(rel.args, 'map');
  return {
    field: p.name,
    name: explicit ? unquote(explicit) : defaultConstraintName(own.table, columns, 'fkey'),
    columns,
    referencedModel: target,
    referencedTable: tableOf(targetModel),
    referencedColumns: refs,
    onDelete: onDeleteArg ? action(onDeleteArg) : allRequired ? 'RESTRICT' : 'SET NULL',
    onUpdate: onUpdateArg ? action(onUpdateArg) : 'CASCADE',
  };
}
