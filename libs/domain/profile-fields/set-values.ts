import type { Realm, User } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import type { EventSink } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import { P, type Infer } from '../../core/schema';
import { renderMarkdown } from '../../markdown';
import type { AppContext } from '../../core/context';
import { markdownContextFor } from '../markdown-context';
import { usersWhoCanAccess } from '../permissions/users';
import { realmUserEvent } from '../../protocol/events/realm-user';

/** Custom profile field types (Zulip's codes). */
export const FieldType = {
  SHORT_TEXT: 1,
  LONG_TEXT: 2,
  SELECT: 3,
  DATE: 4,
  URL: 5,
  USER: 6,
  EXTERNAL_ACCOUNT: 7,
  PRONOUNS: 8,
} as const;

/** Field types whose values are Markdown and carry `rendered_value`. */
const MARKDOWN_TYPES: number[] = [FieldType.SHORT_TEXT, FieldType.LONG_TEXT];

/** One item of `profile_data`; a `value` of null or '' removes the value. */
export const profileDataUpdate = P.object({
  id: P.int().required(),
  value: P.alternatives(P.string(), P.array(P.int())).nullable().required(),
});
export type ProfileDataUpdate = Infer<typeof profileDataUpdate>;

function checkValue(
  field: { name: string; type: number; fieldData: string },
  value: string | number[],
  realmUserIds: Set<number>,
): string {
  const label = field.name;
  switch (field.type) {
    case FieldType.USER: {
      const ids = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
      if (!Array.isArray(ids) || ids.some((id) => !Number.isInteger(id))) {
        throw badRequest(`${label} is not a list`);
      }
      for (const id of ids as number[]) {
        if (!realmUserIds.has(id)) throw badRequest(`Invalid user ID: ${id}`);
      }
      return JSON.stringify(ids);
    }
    default:
      break;
  }
  if (typeof value !== 'string') throw badRequest(`${label} is not a string`);
  switch (field.type) {
    case FieldType.SHORT_TEXT:
    case FieldType.PRONOUNS:
    case FieldType.EXTERNAL_ACCOUNT:
      if (value.length > 50) throw badRequest(`${label} is too long (limit: 50 characters)`);
      break;
    case FieldType.LONG_TEXT:
      if (value.length > 500) throw badRequest(`${label} is too long (limit: 500 characters)`);
      break;
    case FieldType.SELECT: {
      const choices = field.fieldData
        ? (JSON.parse(field.fieldData) as Record<string, unknown>)
        : {};
      if (!(value in choices)) throw badRequest(`'${value}' is not a valid choice for '${label}'.`);
      break;
    }
    case FieldType.DATE:
      if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value))) {
        throw badRequest(`${label} is not a date`);
      }
      break;
    case FieldType.URL:
      try {
        const url = new URL(value);
        if (!['http:', 'https:'].includes(url.protocol)) throw new Error('scheme');
      } catch {
        throw badRequest(`${label} is not a URL`);
      }
      break;
  }
  return value;
}

/**
 * Validates and stores custom profile field values for one user inside the caller's transaction,
 * emitting a `realm_user` custom_profile_field event per changed field to the users who can
 * access that user.
 */
export async function setProfileValues(
  ctx: AppContext,
  tx: Tx,
  events: EventSink,
  input: {
    realm: Realm;
    user: Pick<User, 'id' | 'realmId' | 'isBot'>;
    updates: ProfileDataUpdate[];
  },
): Promise<void> {
  if (input.updates.length === 0) return;
  const userId = input.user.id;
  const audience = await usersWhoCanAccess(tx, input.user);
  const fields = await tx.customProfileField.findMany({
    where: { realmId: input.realm.id, id: { in: input.updates.map((u) => u.id) } },
  });
  const byId = new Map(fields.map((f) => [f.id, f]));
  const needsUsers = fields.some((f) => f.type === FieldType.USER);
  const realmUserIds = new Set(
    needsUsers
      ? (
          await tx.user.findMany({
            where: { realmId: input.realm.id, isActive: true },
            select: { id: true },
          })
        ).map((u) => u.id)
      : [],
  );
  const markdown = fields.some((f) => MARKDOWN_TYPES.includes(f.type))
    ? await markdownContextFor(tx as Db, ctx.config, input.realm)
    : null;
  for (const update of input.updates) {
    const field = byId.get(update.id);
    if (!field) throw badRequest(`Field id ${update.id} not found.`);
    if (update.value === null || update.value === '') {
      await tx.customProfileFieldValue.deleteMany({
        where: { userId, fieldId: field.id },
      });
      await events.emit(
        input.realm.id,
        realmUserEvent({
          op: 'update',
          person: { user_id: userId, custom_profile_field: { id: field.id, value: null } },
        }),
        audience,
      );
      continue;
    }
    const value = checkValue(field, update.value, realmUserIds);
    const renderedValue =
      markdown && MARKDOWN_TYPES.includes(field.type)
        ? (await renderMarkdown(value, markdown)).html
        : null;
    await tx.customProfileFieldValue.upsert({
      where: { userId_fieldId: { userId, fieldId: field.id } },
      create: { userId, fieldId: field.id, value, renderedValue },
      update: { value, renderedValue },
    });
    const entry: { id: number; value: string; rendered_value?: string } = { id: field.id, value };
    if (renderedValue !== null) entry.rendered_value = renderedValue;
    await events.emit(
      input.realm.id,
      realmUserEvent({ op: 'update', person: { user_id: userId, custom_profile_field: entry } }),
      audience,
    );
  }
}
