import { createRequire } from 'node:module';
import path from 'node:path';
import type { Plugin } from 'vite';

const require = createRequire(import.meta.url);

interface SourceEmoji {
  unified: string;
  non_qualified: string | null;
  sheet_x: number;
  sheet_y: number;
  category: string;
  sort_order: number;
  has_img_google: boolean;
}

/** The sheet: Google's emoji at 32 px, 1 px of padding around each, 62 to a side. */
const SHEET = 'emoji-datasource-google/img/google/sheets-256/32.png';
const CATEGORIES = [
  'Smileys & Emotion',
  'People & Body',
  'Animals & Nature',
  'Food & Drink',
  'Activities',
  'Travel & Places',
  'Objects',
  'Symbols',
  'Flags',
];

/**
 * Two modules made at build time from the maintained Google emoji set (emoji-datasource-google)
 * and the server's emoji names (libs/markdown/emoji-data.json):
 *
 * - `virtual:emoji-sheet.css`: the sprite sheet as a hashed asset, and each Zulip emoji code's
 *   place in it, for the server's `<span class="emoji emoji-1f389">`;
 * - `virtual:emoji-catalog`: the picker's emoji, in Unicode's order and categories.
 *
 * The page imports both on demand, so neither is in the first bundle.
 */
export function emojiSheet(webRoot: string): Plugin {
  // Named as if in src/, so the CSS's url() resolves from there.
  const cssId = path.join(webRoot, 'src/emoji-sheet.generated.css');
  const catalogId = '\0virtual:emoji-catalog';
  const load = () => {
    const source = require('emoji-datasource-google/emoji.json') as SourceEmoji[];
    const names = require('../../libs/markdown/emoji-data.json') as Record<string, string[]>;
    const byCode = new Map<string, SourceEmoji>();
    for (const e of source)
      for (const code of [e.unified, e.non_qualified])
        if (code) {
          byCode.set(code.toLowerCase(), e);
          byCode.set(code.toLowerCase().replace(/-fe0f/g, ''), e);
        }
    return { byCode, names };
  };
  return {
    name: 'emoji-sheet',
    resolveId(id) {
      if (id === 'virtual:emoji-sheet.css') return cssId;
      if (id === 'virtual:emoji-catalog') return catalogId;
      return null;
    },
    load(id) {
      if (id === cssId) {
        const { byCode, names } = load();
        const sheet = path.relative(path.dirname(cssId), require.resolve(SHEET));
        const side = 62;
        const rules = Object.keys(names).flatMap((code) => {
          const e = byCode.get(code);
          if (!e || !e.has_img_google) return [];
          const x = ((e.sheet_x * 100) / (side - 1)).toFixed(4);
          const y = ((e.sheet_y * 100) / (side - 1)).toFixed(4);
          return [`.emoji-${code}{background-position:${x}% ${y}%}`];
        });
        return [
          `span.emoji{background-image:url("${sheet.split(path.sep).join('/')}");background-size:${side * 100}% ${side * 100}%}`,
          ...rules,
        ].join('\n');
      }
      if (id === catalogId) {
        const { byCode, names } = load();
        const groups = CATEGORIES.map((name) => ({
          name,
          emoji: [] as [number, string, string[]][],
        }));
        for (const [code, list] of Object.entries(names)) {
          const e = byCode.get(code);
          const group = e && groups.find((g) => g.name === e.category);
          if (group && e.has_img_google) group.emoji.push([e.sort_order, code, list]);
        }
        const catalog = groups.map((g) => ({
          name: g.name,
          emoji: g.emoji.sort((a, b) => a[0] - b[0]).map(([, code, list]) => [code, ...list]),
        }));
        return `export default ${JSON.stringify(catalog)};`;
      }
      return null;
    },
  };
}
