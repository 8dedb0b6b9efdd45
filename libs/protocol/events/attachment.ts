import { plainFormatter, type EventFields } from '../formatter';

/** `attachment` events. */
export interface AttachmentEvent {
  type: 'attachment';
  op: 'add' | 'update' | 'remove';
  /** As formatAttachment builds it; `{ id }` alone for remove. */
  attachment: { id: number };
  upload_space_used: number;
}

export const attachmentEvent = (fields: EventFields<AttachmentEvent>): AttachmentEvent => ({
  ...fields,
  type: 'attachment',
});

export const attachmentFormatter = plainFormatter<AttachmentEvent>();
