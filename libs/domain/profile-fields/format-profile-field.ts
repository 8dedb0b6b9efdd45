import type { CustomProfileField } from '../../../generated/prisma/client';

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
