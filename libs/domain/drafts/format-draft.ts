import type { Draft } from '../../../generated/prisma/client';
import type { ApiDraft } from '../../protocol/records';

export type { ApiDraft };

export function formatDraft(draft: Draft): ApiDraft {
  return {
    id: draft.id,
    type: draft.type as ApiDraft['type'],
    to: draft.toJson as number[],
    topic: draft.topic,
    content: draft.content,
    timestamp: Math.floor(draft.lastEditTime.getTime() / 1000),
  };
}
