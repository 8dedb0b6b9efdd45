import { formatProfileField } from '../../profile-fields/format-profile-field';
import type { StateProvider } from './types';

/** Zulip's field types, as `custom_profile_field_types` describes them. */
const FIELD_TYPES = {
  SHORT_TEXT: { id: 1, name: 'Text (short)' },
  LONG_TEXT: { id: 2, name: 'Text (long)' },
  SELECT: { id: 3, name: 'List of options' },
  DATE: { id: 4, name: 'Date picker' },
  URL: { id: 5, name: 'Link' },
  USER: { id: 6, name: 'Person picker' },
  EXTERNAL_ACCOUNT: { id: 7, name: 'External account' },
  PRONOUNS: { id: 8, name: 'Pronouns' },
};

export const customProfileFieldsState: StateProvider = {
  eventTypes: ['custom_profile_fields'],
  async fetch({ ctx, realm }) {
    const rows = await ctx.db.customProfileField.findMany({
      where: { realmId: realm.id },
      orderBy: [{ order: 'asc' }, { id: 'asc' }],
    });
    return {
      custom_profile_fields: rows.map(formatProfileField),
      custom_profile_field_types: FIELD_TYPES,
    };
  },
};
