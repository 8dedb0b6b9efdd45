export interface MentionableUser {
  id: number;
  fullName: string;
  email: string;
  isActive: boolean;
}

export interface MentionableGroup {
  id: number;
  name: string;
}

export interface LinkableStream {
  id: number;
  name: string;
}

export interface RealmEmojiEntry {
  id: string;
  name: string;
  sourceUrl: string;
  deactivated: boolean;
}

export interface Linkifier {
  id: number;
  pattern: string;
  urlTemplate: string;
}

/** Batch lookups: the renderer first scans the text for candidate names, then asks once per kind. */
export interface MarkdownContext {
  /** e.g. "http://localhost:9991", for absolute/relative link handling. */
  realmUrl: string;
  /** Case-insensitive full names. */
  lookupUsersByName(names: string[]): Promise<MentionableUser[]>;
  lookupUsersById(ids: number[]): Promise<MentionableUser[]>;
  lookupGroupsByName(names: string[]): Promise<MentionableGroup[]>;
  lookupStreamsByName(names: string[]): Promise<LinkableStream[]>;
  realmEmoji: RealmEmojiEntry[];
  linkifiers: Linkifier[];
  emptyTopicDisplayName?: string;
  translateEmoticons?: boolean;
  /** The organization's `default_code_block_language`, for fences that name none. */
  defaultCodeBlockLanguage?: string;
  /**
   * The camo proxy's URL for an external image or video (CAMO_URI set); without it previews
   * link to the remote host itself.
   */
  camoUrl?: (url: string) => string;
}

export interface RenderedMarkdown {
  html: string;
  /** Non-silent user mentions; group members are NOT expanded (group ids listed separately). */
  mentionedUserIds: number[];
  mentionedGroupIds: number[];
  /** @**all** / @**everyone** / @**channel** / @**stream** (non-silent). */
  streamWildcardMentioned: boolean;
  /** @**topic** (non-silent). */
  topicWildcardMentioned: boolean;
  hasLink: boolean;
  hasImage: boolean;
  /** A link to /user_uploads/. */
  hasAttachment: boolean;
  isMeMessage: boolean;
  /** Topic links are computed separately by linkifyTopic. */
  topicLinks?: never;
}
