import { EMPTY_TOPIC_FALLBACK_NAME } from '../protocol/topics';
import type MarkdownIt from 'markdown-it';
import { at } from '../core/at';
import { zulipEnv } from './env';
import { escapeAttr, escapeText } from './escape';
import type { LinkableStream, MentionableUser } from './types';

const STREAM_WILDCARDS = new Set(['all', 'everyone', 'channel', 'stream']);
const TOPIC_WILDCARD = 'topic';

/** Characters after which a mention may start (Zulip's `(?<![^\s'"\(\{\[\/<])`). */
function mentionMayStartAfter(src: string, pos: number): boolean {
  const before = src[pos - 1];
  return before === undefined || /[\s'"({[/<]/.test(before);
}

// Sticky regexes used by the inline rules (the rule checks the position itself).
const USER_MENTION_RE = /@(_?)\*\*([^*]+)\*\*/y;
const GROUP_MENTION_RE = /@(_?)\*([^*]+)\*(?!\*)/y;
const STREAM_RE = /#\*\*([^*]+)\*\*/y;

// Global versions for the candidate scan done before rendering.
const USER_MENTION_SCAN = /@_?\*\*([^*]+)\*\*/g;
const GROUP_MENTION_SCAN = /@_?\*([^*]+)\*/g;
const STREAM_SCAN = /#\*\*([^*]+)\*\*/g;

export interface MentionCandidates {
  userNames: string[];
  userIds: number[];
  groupNames: string[];
  streamNames: string[];
}

function splitNameAndId(body: string): { name: string; id?: number } {
  const [, name, id] = /^(.*)\|(\d+)$/.exec(body) ?? [];
  if (name === undefined || id === undefined) return { name: body };
  return { name, id: Number(id) };
}

/** Everything in the raw text that may need a database lookup (false positives are harmless). */
export function scanMentionCandidates(content: string): MentionCandidates {
  const userNames = new Set<string>();
  const userIds = new Set<number>();
  const groupNames = new Set<string>();
  const streamNames = new Set<string>();
  for (const m of content.matchAll(USER_MENTION_SCAN)) {
    const { name, id } = splitNameAndId(at(m, 1));
    if (id !== undefined) userIds.add(id);
    else if (!STREAM_WILDCARDS.has(name) && name !== TOPIC_WILDCARD) userNames.add(name);
  }
  for (const m of content.matchAll(GROUP_MENTION_SCAN)) groupNames.add(at(m, 1));
  for (const m of content.matchAll(STREAM_SCAN)) {
    const body = at(m, 1);
    const gt = body.indexOf('>');
    streamNames.add(gt === -1 ? body : body.slice(0, gt));
  }
  return {
    userNames: [...userNames],
    userIds: [...userIds],
    groupNames: [...groupNames],
    streamNames: [...streamNames],
  };
}

function findUser(
  usersByName: Map<string, MentionableUser[]>,
  usersById: Map<number, MentionableUser>,
  body: string,
): MentionableUser | undefined {
  const { name, id } = splitNameAndId(body);
  if (id !== undefined) {
    const user = usersById.get(id);
    if (!user) return undefined;
    // Zulip: with `Name|id`, the name must be the user's exact full name.
    if (name !== '' && name !== user.fullName) return undefined;
    return user;
  }
  const matches = usersByName.get(name.toLowerCase()) ?? [];
  return matches.length === 1 ? matches[0] : undefined;
}

function userMention(state: MarkdownIt.StateInline, silentParse: boolean): boolean {
  const src = state.src;
  const pos = state.pos;
  if (src.charCodeAt(pos) !== 0x40 /* @ */ || !mentionMayStartAfter(src, pos)) return false;
  USER_MENTION_RE.lastIndex = pos;
  const m = USER_MENTION_RE.exec(src);
  if (!m) return false;
  const env = zulipEnv(state.env);
  const silent = m[1] === '_';
  const body = at(m, 2);
  let html: string;
  if (STREAM_WILDCARDS.has(body)) {
    const cls = silent
      ? 'user-mention channel-wildcard-mention silent'
      : 'user-mention channel-wildcard-mention';
    html = `<span class="${cls}" data-user-id="*">${silent ? '' : '@'}${escapeText(body)}</span>`;
    if (!silentParse && !silent) env.streamWildcardMentioned = true;
  } else if (body === TOPIC_WILDCARD) {
    const cls = silent ? 'topic-mention silent' : 'topic-mention';
    html = `<span class="${cls}">${silent ? '' : '@'}${body}</span>`;
    if (!silentParse && !silent) env.topicWildcardMentioned = true;
  } else {
    const user = findUser(env.usersByName, env.usersById, body);
    if (!user) return false;
    // Mentions of deactivated users are shown, but never notify.
    const quiet = silent || !user.isActive;
    const cls = quiet ? 'user-mention silent' : 'user-mention';
    html =
      `<span class="${cls}" data-user-id="${user.id}">` +
      `${quiet ? '' : '@'}${escapeText(user.fullName)}</span>`;
    if (!silentParse && !quiet) env.mentionedUserIds.add(user.id);
  }
  if (!silentParse) state.push('html_inline', '', 0).content = html;
  state.pos = pos + m[0].length;
  return true;
}

function groupMention(state: MarkdownIt.StateInline, silentParse: boolean): boolean {
  const src = state.src;
  const pos = state.pos;
  if (src.charCodeAt(pos) !== 0x40 /* @ */ || !mentionMayStartAfter(src, pos)) return false;
  GROUP_MENTION_RE.lastIndex = pos;
  const m = GROUP_MENTION_RE.exec(src);
  if (!m) return false;
  const env = zulipEnv(state.env);
  const group = env.groupsByName.get(at(m, 2).toLowerCase());
  if (!group) return false;
  const silent = m[1] === '_';
  if (!silentParse) {
    const cls = silent ? 'user-group-mention silent' : 'user-group-mention';
    state.push('html_inline', '', 0).content =
      `<span class="${cls}" data-user-group-id="${group.id}">` +
      `${silent ? '' : '@'}${escapeText(group.name)}</span>`;
    if (!silent) env.mentionedGroupIds.add(group.id);
  }
  state.pos = pos + m[0].length;
  return true;
}

/** Zulip's hash_util_encode: percent-encode everything but [A-Za-z0-9_-~], then "." for "%". */
export function hashEncode(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*.]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%/g, '.');
}

export function streamNarrowUrl(stream: LinkableStream): string {
  return `/#narrow/channel/${stream.id}-${hashEncode(stream.name.replace(/ /g, '-'))}`;
}

function streamLink(state: MarkdownIt.StateInline, silentParse: boolean): boolean {
  const src = state.src;
  const pos = state.pos;
  if (src.charCodeAt(pos) !== 0x23 /* # */ || !mentionMayStartAfter(src, pos)) return false;
  STREAM_RE.lastIndex = pos;
  const m = STREAM_RE.exec(src);
  if (!m) return false;
  const env = zulipEnv(state.env);
  const body = at(m, 1);
  const gt = body.indexOf('>');
  const streamName = gt === -1 ? body : body.slice(0, gt);
  const stream = env.streamsByName.get(streamName.toLowerCase());
  if (!stream) return false;
  if (!silentParse) {
    const base = streamNarrowUrl(stream);
    const name = escapeText(stream.name);
    let html: string;
    if (gt === -1) {
      html = `<a class="stream" data-stream-id="${stream.id}" href="${escapeAttr(base)}">#${name}</a>`;
    } else {
      let topic = body.slice(gt + 1);
      const [, topicOfMessage, messageId] = /^(.*)@(\d+)$/.exec(topic) ?? [];
      if (topicOfMessage !== undefined) topic = topicOfMessage;
      const topicUrl = `${base}/topic/${hashEncode(topic)}`;
      const topicHtml =
        topic === ''
          ? `<em>${escapeText(env.ctx.emptyTopicDisplayName ?? EMPTY_TOPIC_FALLBACK_NAME)}</em>`
          : escapeText(topic);
      html =
        messageId !== undefined
          ? `<a class="message-link" href="${escapeAttr(`${topicUrl}/near/${messageId}`)}">` +
            `#${name} &gt; ${topicHtml} @ 💬</a>`
          : `<a class="stream-topic" data-stream-id="${stream.id}" href="${escapeAttr(topicUrl)}">` +
            `#${name} &gt; ${topicHtml}</a>`;
    }
    state.push('html_inline', '', 0).content = html;
  }
  state.pos = pos + m[0].length;
  return true;
}

/** Registers the mention and channel-link inline rules (they must run before emphasis). */
export function mentionsPlugin(md: MarkdownIt.MarkdownIt): void {
  md.inline.ruler.before('emphasis', 'zulip_user_mention', userMention);
  md.inline.ruler.before('emphasis', 'zulip_group_mention', groupMention);
  md.inline.ruler.before('emphasis', 'zulip_stream_link', streamLink);
}
