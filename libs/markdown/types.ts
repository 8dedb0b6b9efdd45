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

/** What a page says of itself (its Open Graph tags, else its title and text), for a preview. */
export interface LinkEmbed {
  title: string | null;
  description: string | null;
  /** Absolute http(s) URL of the page's image; Zulip shows no preview without one. */
  image: string | null;
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
  /**
   * Zulip's url_embed_preview_enabled (the server's INLINE_URL_EMBED_PREVIEW and the
   * organization's `inline_url_embed_preview`): links to web pages are listed in
   * `linksForPreview`, or previewed from `urlEmbedData`.
   */
  urlEmbedPreview?: boolean;
  /**
   * The previews fetched for the message's links (the embed job's second rendering); a URL
   * mapped to null was fetched and has nothing to show.
   */
  urlEmbedData?: ReadonlyMap<string, LinkEmbed | null>;
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
  /** Links to web pages whose previews are still to fetch (Zulip's links_for_preview). */
  linksForPreview: string[];
  /** Topic links are computed separately by linkifyTopic. */
  topicLinks?: never;
}
