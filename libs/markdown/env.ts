import type MarkdownIt from 'markdown-it';
import type { LinkableStream, MarkdownContext, MentionableGroup, MentionableUser } from './types';

/** Per-render state shared by the markdown-it rules (passed as markdown-it's `env`). */
export interface ZulipEnv extends MarkdownIt.Env {
  ctx: MarkdownContext;
  usersByName: Map<string, MentionableUser[]>;
  usersById: Map<number, MentionableUser>;
  groupsByName: Map<string, MentionableGroup>;
  streamsByName: Map<string, LinkableStream>;
  mentionedUserIds: Set<number>;
  mentionedGroupIds: Set<number>;
  streamWildcardMentioned: boolean;
  topicWildcardMentioned: boolean;
  hasLink: boolean;
  hasImage: boolean;
  hasAttachment: boolean;
  /** Links whose page previews are still to fetch, in order (link-embeds.ts). */
  linksForPreview: Set<string>;
  /** Spoilers being tokenized: fences inside them get no default language, as in Zulip. */
  spoilerDepth: number;
}

export function zulipEnv(env: unknown): ZulipEnv {
  return env as ZulipEnv;
}
