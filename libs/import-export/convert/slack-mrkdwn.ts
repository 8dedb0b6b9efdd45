/**
 * Slack's `mrkdwn` to Zulip Markdown, as Zulip's Slack importer converts it
 * (zerver/data_import/slack_message_conversion.py): `<@U..>` becomes `@**Name**`, `<#C..|x>`
 * `#**x**`, `<url|text>` `[text](url)`, `*bold*` `**bold**`, `_italic_` `*italic*` and
 * `~strike~` `~~strike~~`. Code spans and blocks are left as they are.
 */

import { at } from '../../core/at';

export interface MrkdwnNames {
  /** The Zulip full name of a Slack user id, if the workspace has that user. */
  user(slackId: string): string | undefined;
  /** The channel's name for a Slack channel id, if known. */
  channel(slackId: string): string | undefined;
}

/** Stands for an already converted `<...>` while emphasis is converted around it. */
const MARK = '\uE000';

const unescape = (text: string) =>
  text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** One `<...>` of Slack's: a link, a mention, a channel or a special mention. */
function angle(body: string, names: MrkdwnNames): string {
  const [target, label] = splitLabel(body);
  if (target.startsWith('@')) {
    const id = target.slice(1);
    const name = names.user(id);
    return name ? `@**${name}**` : `@${label ?? id}`;
  }
  if (target.startsWith('#')) {
    const name = label ?? names.channel(target.slice(1));
    return name ? `#**${name}**` : `#${target.slice(1)}`;
  }
  if (target.startsWith('!')) {
    const special = at(target.slice(1).split('^'), 0);
    if (special === 'here' || special === 'channel' || special === 'everyone') return '@**all**';
    if (special.startsWith('subteam')) return label ? `@${label.replace(/^@/, '')}` : '';
    if (special.startsWith('date')) return label ?? '';
    return label ?? '';
  }
  const url = unescape(target);
  if (url.startsWith('mailto:')) return unescape(label ?? url.slice('mailto:'.length));
  if (!label || unescape(label) === url) return url;
  return `[${unescape(label).replace(/[[\]]/g, '')}](${url})`;
}

function splitLabel(body: string): [string, string | undefined] {
  const bar = body.indexOf('|');
  return bar < 0 ? [body, undefined] : [body.slice(0, bar), body.slice(bar + 1)];
}

/** Emphasis only where Slack sees it: delimited by spaces or punctuation, not inside words. */
const BEFORE = `(^|[\\s(\\[{>"'${MARK}])`;
const AFTER = `(?=$|[\\s.,;:!?)\\]}'"<${MARK}])`;
const emphasis = (mark: string) =>
  new RegExp(`${BEFORE}\\${mark}(?![\\s${mark}])([^${mark}\\n]+?)(?<!\\s)\\${mark}${AFTER}`, 'gm');
const BOLD = emphasis('*');
const ITALIC = emphasis('_');
const STRIKE = emphasis('~');

/** A `<...>` of Slack's, or a mark the message itself holds. */
const ANGLE_OR_MARK = new RegExp(`<([^<>\\n]+)>|${MARK}`, 'g');

function convertProse(text: string, names: MrkdwnNames): string {
  const converted: string[] = [];
  // A mark the message itself holds is stood for too (by itself): every mark, number and mark
  // left in the text is then one of these.
  const withMarks = text.replace(ANGLE_OR_MARK, (whole, body: string | undefined) => {
    converted.push(body === undefined ? whole : angle(body, names));
    return `${MARK}${converted.length - 1}${MARK}`;
  });
  const formatted = withMarks
    .replace(BOLD, '$1**$2**')
    .replace(ITALIC, '$1*$2*')
    .replace(STRIKE, '$1~~$2~~');
  return unescape(formatted).replace(new RegExp(`${MARK}(\\d+)${MARK}`, 'g'), (_, i: string) =>
    at(converted, Number(i)),
  );
}

/** Slack's mrkdwn as Zulip Markdown. */
export function mrkdwnToMarkdown(text: string, names: MrkdwnNames): string {
  // Code blocks and spans are kept as written (entities aside); the prose between is converted.
  const parts = text.split(/(```[\s\S]*?```|`[^`\n]+`)/g);
  return parts
    .map((part, i) => {
      if (i % 2 === 0) return convertProse(part, names);
      if (part.startsWith('```')) {
        const body = unescape(part.slice(3, -3)).replace(/^\n/, '').replace(/\n$/, '');
        return `\n\`\`\`\n${body}\n\`\`\`\n`;
      }
      return unescape(part);
    })
    .join('')
    .replace(/^\n+|\n+$/g, '');
}
