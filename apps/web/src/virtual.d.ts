// Modules made at build time by apps/web/emoji-plugin.mts.
declare module 'virtual:emoji-sheet.css';
declare module 'virtual:emoji-catalog' {
  /** Categories of emoji, each emoji as its code then its names (the first canonical). */
  const catalog: { name: string; emoji: [string, ...string[]][] }[];
  export default catalog;
}
