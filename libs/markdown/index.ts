export type {
  Linkifier,
  LinkableStream,
  LinkEmbed,
  MarkdownContext,
  MentionableGroup,
  MentionableUser,
  RealmEmojiEntry,
  RenderedMarkdown,
} from './types';
export { renderMarkdown } from './render';
export { linkifyTopic, validateLinkifier } from './linkifiers';
export { findAlertWords } from './alert-words';
export {
  ZULIP_EXTRA_EMOJI,
  emojiCodeForName,
  emojiNameForCode,
  type ZulipExtraEmoji,
} from './emoji';
