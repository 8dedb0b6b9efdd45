/** Escaping for text content, the way Zulip's backend does it: quotes are left alone. */
export function escapeText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Escaping for attribute values (always double-quoted). */
export function escapeAttr(s: string): string {
  return escapeText(s).replace(/"/g, '&quot;');
}
