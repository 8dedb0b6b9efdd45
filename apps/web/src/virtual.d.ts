// Modules made at build time by apps/web/emoji-plugin.mts.
declare module 'virtual:emoji-sheet.css';
declare module 'virtual:emoji-catalog' {
  /**
   * Categories of emoji, each emoji as its code then its names (the first canonical; every code
   * in libs/markdown/emoji-data.json has one).
   */
  const catalog: { name: string; emoji: [code: string, name: string, ...aliases: string[]][] }[];
  export default catalog;
}
