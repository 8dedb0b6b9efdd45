import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { requireRealmAdmin } from '../permissions/users';
import { FieldType } from './set-values';
import { sendFields } from './list-profile-fields';
import {
  type FieldSettings,
  checkFieldData,
  checkSettings,
  checkSummaryLimit,
  checkUniqueName,
} from './validate-profile-field';

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
