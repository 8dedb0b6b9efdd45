/** Escaping for text content, the way Zulip's backend does it: quotes are left alone. */
const TEXT_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

export function escapeText(s: string): string {
  return /[&<>]/.test(s) ? s.replace(/[&<>]/g, (c) => TEXT_ENTITIES[c] ?? c) : s;
}

/** Escaping for attribute values (always double-quoted). */
export function escapeAttr(s: string): string {
  return escapeText(s).replace(/"/g, '&quot;');
}
