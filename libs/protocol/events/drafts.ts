import { plainFormatter, type EventFields } from '../formatter';

/** `drafts` events. */
export type DraftsEvent =
  | { type: 'drafts'; op: 'add'; drafts: object[] }
  | { type: 'drafts'; op: 'update'; draft: object }
  | { type: 'drafts'; op: 'remove'; draft_id: number };

export const draftsEvent = (fields: EventFields<DraftsEvent>): DraftsEvent => ({
  ...fields,
  type: 'drafts',
});

export const draftsFormatter = plainFormatter<DraftsEvent>();
