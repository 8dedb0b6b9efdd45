import type { Draft } from '../../../generated/prisma/client';

/** A draft as the API shows it. */
export interface ApiDraft {
  id: number;
  type: '' | 'stream' | 'private';
  to: number[];
  topic: string;
  content: string;
  timestamp: number;
}

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
