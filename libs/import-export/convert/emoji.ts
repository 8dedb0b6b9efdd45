import { readFileSync } from 'node:fs';
import { at } from '../../core/at';
import { emojiCodeForName, emojiNameForCode } from '../../markdown';

interface IamcalEmoji {
  short_name: string;
  short_names: string[];
  unified: string;
  non_qualified?: string | null;
}

let iamcal: Map<string, string> | undefined;

/** Slack's (and Mattermost's) emoji names are iamcal's emoji-data short names. */
function iamcalCodes(): Map<string, string> {
  if (!iamcal) {
    const data = JSON.parse(
      readFileSync(require.resolve('emoji-datasource-google/emoji.json'), 'utf8'),
    ) as IamcalEmoji[];
    iamcal = new Map();
    for (const e of data) {
      const code = (e.non_qualified ?? e.unified).toLowerCase();
      for (const name of [e.short_name, ...e.short_names]) iamcal.set(name, code);
    }
  }
  return iamcal;
}

/**
 * The Zulip name and code of a Unicode emoji named as Slack or Mattermost name it (skin tones,
 * `name::skin-tone-2`, dropped as Zulip's importer drops them), or undefined.
 */
export function unicodeEmoji(name: string): { name: string; code: string } | undefined {
  const base = at(name.split('::'), 0);
  const code = iamcalCodes().get(base) ?? emojiCodeForName(base);
  if (!code) return undefined;
  const zulipName = emojiNameForCode(code);
  return zulipName ? { name: zulipName, code } : undefined;
}
