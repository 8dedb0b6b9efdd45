import MarkdownIt from 'markdown-it';
import { codeBlocksPlugin } from './code-blocks';
import type { ZulipEnv } from './env';
import { emphasisPlugin } from './emphasis';
import { inlineImagesPlugin } from './inline-images';
import { linkEmbedsPlugin } from './link-embeds';
import { mathPlugin } from './math';
import { mentionsPlugin, scanMentionCandidates } from './mentions';
import { mixedBulletsPlugin } from './mixed-bullets';
import { continueQuotesAfterEmptyLines } from './quote-continuation';
import { normalizeListIndentation, syntaxPlugin } from './syntax';
import { textPassPlugin } from './links-and-emoji';
import { timestampPlugin } from './timestamps';
import { normalizeWhitespace } from './whitespace';
import type { MarkdownContext, MentionableUser, RenderedMarkdown } from './types';

let parser: MarkdownIt.MarkdownIt | undefined;

function getParser(): MarkdownIt.MarkdownIt {
  if (parser === undefined) {
    parser = new MarkdownIt('default', {
      html: false,
      breaks: true,
      linkify: false,
      typographer: false,
    })
      .use(syntaxPlugin)
      .use(mixedBulletsPlugin)
      .use(emphasisPlugin)
      .use(codeBlocksPlugin)
      .use(mathPlugin)
      .use(timestampPlugin)
      .use(mentionsPlugin)
      .use(textPassPlugin)
      .use(inlineImagesPlugin)
      .use(linkEmbedsPlugin);
  }
  return parser;
}

async function buildEnv(content: string, ctx: MarkdownContext): Promise<ZulipEnv> {
  const candidates = scanMentionCandidates(content);
  const none = Promise.resolve([]);
  const [byName, byId, groups, streams] = await Promise.all([
    candidates.userNames.length > 0 ? ctx.lookupUsersByName(candidates.userNames) : none,
    candidates.userIds.length > 0 ? ctx.lookupUsersById(candidates.userIds) : none,
    candidates.groupNames.length > 0 ? ctx.lookupGroupsByName(candidates.groupNames) : none,
    candidates.streamNames.length > 0 ? ctx.lookupStreamsByName(candidates.streamNames) : none,
  ]);
  const usersByName = new Map<string, MentionableUser[]>();
  for (const user of byName) {
    const key = user.fullName.toLowerCase();
    const list = usersByName.get(key) ?? [];
    if (!list.some((u) => u.id === user.id)) list.push(user);
    usersByName.set(key, list);
  }
  return {
    ctx,
    usersByName,
    usersById: new Map(byId.map((u) => [u.id, u])),
    groupsByName: new Map(groups.map((g) => [g.name.toLowerCase(), g])),
    streamsByName: new Map(streams.map((s) => [s.name.toLowerCase(), s])),
    mentionedUserIds: new Set(),
    mentionedGroupIds: new Set(),
    streamWildcardMentioned: false,
    topicWildcardMentioned: false,
    hasLink: false,
    hasImage: false,
    hasAttachment: false,
    linksForPreview: new Set(),
    spoilerDepth: 0,
  };
}

export async function renderMarkdown(
  content: string,
  ctx: MarkdownContext,
): Promise<RenderedMarkdown> {
  const env = await buildEnv(content, ctx);
  const html = getParser()
    .render(
      normalizeListIndentation(continueQuotesAfterEmptyLines(normalizeWhitespace(content))),
      env,
    )
    .replace(/\n$/, '');
  return {
    html,
    mentionedUserIds: [...env.mentionedUserIds],
    mentionedGroupIds: [...env.mentionedGroupIds],
    streamWildcardMentioned: env.streamWildcardMentioned,
    topicWildcardMentioned: env.topicWildcardMentioned,
    hasLink: env.hasLink,
    hasImage: env.hasImage,
    hasAttachment: env.hasAttachment,
    isMeMessage: /^\/me /.test(content) && !content.includes('\n'),
    linksForPreview: [...env.linksForPreview],
  };
}
