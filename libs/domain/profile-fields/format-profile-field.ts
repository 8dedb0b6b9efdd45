import type { CustomProfileField } from '../../../generated/prisma/client';
import type { ApiCustomProfileField } from '../../protocol/records';

export type ApiProfileField = ApiCustomProfileField;

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
