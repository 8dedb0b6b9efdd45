import type { CustomProfileField, Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { requireRealmAdmin } from '../permissions/users';
import { sendFields } from './list-profile-fields';
import {
  type FieldSettings,
  checkFieldData,
  checkSettings,
  checkSummaryLimit,
  checkUniqueName,
  findField,
} from './validate-profile-field';

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
