import type { CustomProfileField, Realm, User } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import type { EventSink } from '../../events/outbox';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { realmUserAudience, requireRealmAdmin } from '../permissions/users';
import { FieldType } from './set-values';
import { equalsIgnoringCase } from '../../db/text-match';

export const MAX_FIELD_NAME_LENGTH = 40;
export const MAX_FIELD_HINT_LENGTH = 80;
const MAX_SUMMARY_FIELDS = 2;

export interface ApiProfileField {
  id: number;
  type: number;
  order: number;
  name: string;
  hint: string;
  field_data: string;
  display_in_profile_summary?: boolean;
  required: boolean;
  editable_by_user: boolean;
}

export function formatProfileField(field: CustomProfileField): ApiProfileField {
  const result: ApiProfileField = {
    id: field.id,
    type: field.type,
    order: field.order,
    name: field.name,
    hint: field.hint,
    field_data: field.fieldData,
    required: field.required,
    editable_by_user: field.editableByUser,
  };
  if (field.displayInProfileSummary) result.display_in_profile_summary = true;
  return result;
}

export async function listProfileFields(db: Db | Tx, realmId: number): Promise<ApiProfileField[]> {
  const rows = await db.customProfileField.findMany({
    where: { realmId },
    orderBy: [{ order: 'asc' }, { id: 'asc' }],
  });
  return rows.map(formatProfileField);
}

async function sendFields(tx: Tx, events: EventSink, realmId: number): Promise<void> {
  await events.emit(
    realmId,
    { type: 'custom_profile_fields', fields: await listProfileFields(tx, realmId) },
    await realmUserAudience(tx, realmId),
  );
}

export interface FieldSettings {
  name?: string;
  hint?: string;
  fieldData?: Record<string, unknown>;
  displayInProfileSummary?: boolean;
  required?: boolean;
  editableByUser?: boolean;
}

/** Validates `field_data` for choice and external-account fields; returns its stored text. */
function checkFieldData(type: number, data: Record<string, unknown> | undefined): string {
  if (type === FieldType.SELECT) {
    const choices = Object.entries(data ?? {});
    if (choices.length === 0) throw badRequest('Field must have at least one choice.');
    for (const [key, choice] of choices) {
      const c = choice as { text?: unknown; order?: unknown } | null;
      if (!c || typeof c !== 'object' || typeof c.text !== 'string' || c.text.trim() === '') {
        throw badRequest(`field_data["${key}"]["text"] cannot be blank.`);
      }
    }
    const texts = choices.map(([, c]) => (c as { text: string }).text);
    if (new Set(texts).size !== texts.length)
      throw badRequest('Field must not have duplicate choices.');
    return JSON.stringify(data);
  }
  if (type === FieldType.EXTERNAL_ACCOUNT) {
    const subtype = data?.subtype;
    if (typeof subtype !== 'string' || subtype === '') {
      throw badRequest('Custom external account must define a subtype');
    }
    if (subtype === 'custom' && typeof data?.url_pattern !== 'string') {
      throw badRequest('Custom external account must define URL pattern');
    }
    return JSON.stringify(data);
  }
  return '';
}

function checkSettings(type: number, settings: FieldSettings): void {
  if (settings.name !== undefined) {
    const name = settings.name.trim();
    if (name === '') throw badRequest('Label cannot be blank.');
    if (name.length > MAX_FIELD_NAME_LENGTH) {
      throw badRequest(`name is too long (limit: ${MAX_FIELD_NAME_LENGTH} characters)`);
    }
  }
  if (settings.hint !== undefined && settings.hint.length > MAX_FIELD_HINT_LENGTH) {
    throw badRequest(`hint is too long (limit: ${MAX_FIELD_HINT_LENGTH} characters)`);
  }
  if (settings.displayInProfileSummary && type === FieldType.LONG_TEXT) {
    throw badRequest('Field type not supported for display in profile summary.');
  }
}

async function checkSummaryLimit(tx: Tx, realmId: number, exceptId?: number): Promise<void> {
  const count = await tx.customProfileField.count({
    where: {
      realmId,
      displayInProfileSummary: true,
      ...(exceptId !== undefined ? { id: { not: exceptId } } : {}),
    },
  });
  if (count >= MAX_SUMMARY_FIELDS) {
    throw badRequest('Only 2 custom profile fields can be displayed in the profile summary.');
  }
}

async function checkUniqueName(tx: Tx, realmId: number, name: string, exceptId?: number) {
  const clash = await tx.customProfileField.findFirst({
    where: {
      realmId,
      name: equalsIgnoringCase(name),
      ...(exceptId !== undefined ? { id: { not: exceptId } } : {}),
    },
  });
  if (clash) throw badRequest('A field with that label already exists.');
}

/** `POST /realm/profile_fields`. */
export async function createProfileField(
  ctx: AppContext,
  input: { actor: User; realm: Realm; type: number; settings: FieldSettings },
): Promise<number> {
  requireRealmAdmin(input.actor);
  if (!(Object.values(FieldType) as number[]).includes(input.type)) {
    throw badRequest('Invalid field type.');
  }
  const { settings } = input;
  if (settings.name === undefined) throw badRequest('Label cannot be blank.');
  checkSettings(input.type, settings);
  const fieldData = checkFieldData(input.type, settings.fieldData);
  return inTransaction(ctx, async (tx, events) => {
    const name = settings.name!.trim();
    await checkUniqueName(tx, input.realm.id, name);
    if (settings.displayInProfileSummary) await checkSummaryLimit(tx, input.realm.id);
    const last = await tx.customProfileField.aggregate({
      where: { realmId: input.realm.id },
      _max: { order: true },
    });
    const field = await tx.customProfileField.create({
      data: {
        realmId: input.realm.id,
        name,
        hint: settings.hint ?? '',
        type: input.type,
        fieldData,
        order: (last._max.order ?? 0) + 1,
        displayInProfileSummary: settings.displayInProfileSummary ?? false,
        required: settings.required ?? false,
        editableByUser: settings.editableByUser ?? true,
      },
    });
    await sendFields(tx, events, input.realm.id);
    return field.id;
  });
}

async function findField(tx: Tx, realmId: number, id: number): Promise<CustomProfileField> {
  const field = await tx.customProfileField.findFirst({ where: { id, realmId } });
  if (!field) throw badRequest('Field id ' + id + ' not found.');
  return field;
}

/** `PATCH /realm/profile_fields/{field_id}`. */
export async function updateProfileField(
  ctx: AppContext,
  input: { actor: User; realm: Realm; id: number; settings: FieldSettings },
): Promise<void> {
  requireRealmAdmin(input.actor);
  await inTransaction(ctx, async (tx, events) => {
    const field = await findField(tx, input.realm.id, input.id);
    const { settings } = input;
    checkSettings(field.type, settings);
    const data: Partial<CustomProfileField> = {};
    if (settings.name !== undefined) {
      data.name = settings.name.trim();
      await checkUniqueName(tx, input.realm.id, data.name, field.id);
    }
    if (settings.hint !== undefined) data.hint = settings.hint;
    if (settings.fieldData !== undefined)
      data.fieldData = checkFieldData(field.type, settings.fieldData);
    if (settings.displayInProfileSummary !== undefined) {
      if (settings.displayInProfileSummary && !field.displayInProfileSummary) {
        await checkSummaryLimit(tx, input.realm.id, field.id);
      }
      data.displayInProfileSummary = settings.displayInProfileSummary;
    }
    if (settings.required !== undefined) data.required = settings.required;
    if (settings.editableByUser !== undefined) data.editableByUser = settings.editableByUser;
    await tx.customProfileField.update({ where: { id: field.id }, data });
    await sendFields(tx, events, input.realm.id);
  });
}

/** `DELETE /realm/profile_fields/{field_id}`: the field and every user's value of it. */
export async function deleteProfileField(
  ctx: AppContext,
  input: { actor: User; realm: Realm; id: number },
): Promise<void> {
  requireRealmAdmin(input.actor);
  await inTransaction(ctx, async (tx, events) => {
    await findField(tx, input.realm.id, input.id);
    await tx.customProfileField.delete({ where: { id: input.id } });
    await sendFields(tx, events, input.realm.id);
  });
}

/** `PATCH /realm/profile_fields`: `order` lists every field ID once. */
export async function reorderProfileFields(
  ctx: AppContext,
  input: { actor: User; realm: Realm; order: number[] },
): Promise<void> {
  requireRealmAdmin(input.actor);
  await inTransaction(ctx, async (tx, events) => {
    const rows = await tx.customProfileField.findMany({
      where: { realmId: input.realm.id },
      select: { id: true },
    });
    const ids = new Set(rows.map((r) => r.id));
    if (
      new Set(input.order).size !== input.order.length ||
      input.order.length !== ids.size ||
      input.order.some((id) => !ids.has(id))
    ) {
      throw badRequest('Invalid order mapping.');
    }
    for (const [index, id] of input.order.entries()) {
      await tx.customProfileField.update({ where: { id }, data: { order: index + 1 } });
    }
    await sendFields(tx, events, input.realm.id);
  });
}
