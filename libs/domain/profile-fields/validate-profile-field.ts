import type { CustomProfileField } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { badRequest } from '../../core/errors';
import { FieldType } from './set-values';
import { equalsIgnoringCase } from '../../db/text-match';

export const MAX_FIELD_NAME_LENGTH = 40;

export const MAX_FIELD_HINT_LENGTH = 80;

const MAX_SUMMARY_FIELDS = 2;

export interface FieldSettings {
  name?: string;
  hint?: string;
  fieldData?: Record<string, unknown>;
  displayInProfileSummary?: boolean;
  required?: boolean;
  editableByUser?: boolean;
}

/** Validates `field_data` for choice and external-account fields; returns its stored text. */
export function checkFieldData(type: number, data: Record<string, unknown> | undefined): string {
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

export function checkSettings(type: number, settings: FieldSettings): void {
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

export async function checkSummaryLimit(tx: Tx, realmId: number, exceptId?: number): Promise<void> {
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

export async function checkUniqueName(tx: Tx, realmId: number, name: string, exceptId?: number) {
  const clash = await tx.customProfileField.findFirst({
    where: {
      realmId,
      name: equalsIgnoringCase(name),
      ...(exceptId !== undefined ? { id: { not: exceptId } } : {}),
    },
  });
  if (clash) throw badRequest('A field with that label already exists.');
}

export async function findField(tx: Tx, realmId: number, id: number): Promise<CustomProfileField> {
  const field = await tx.customProfileField.findFirst({ where: { id, realmId } });
  if (!field) throw badRequest('Field id ' + id + ' not found.');
  return field;
}
