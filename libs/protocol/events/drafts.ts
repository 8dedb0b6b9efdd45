import type { ApiDraft } from '../records';
import { plainFormatter, type EventFields } from '../formatter';

/** `drafts` events. */
export type DraftsEvent =
  | { type: 'drafts'; op: 'add'; drafts: ApiDraft[] }
  | { type: 'drafts'; op: 'update'; draft: ApiDraft }
  | { type: 'drafts'; op: 'remove'; draft_id: number };

export const draftsEvent = (fields: EventFields<DraftsEvent>): DraftsEvent => ({
  ...fields,
  type: 'drafts',
});

export const draftsFormatter = plainFormatter<DraftsEvent>();
