/*
 * Zulip quotes a bot's response in the owner's notice with Python's repr(): of the raw bytes
 * for an error status (b'...'), of the decoded text for an unusable reply ('...'). Owners who
 * compare notices from the two servers see the same text.
 */

const SIMPLE_ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

/** Python quotes with ' unless the text holds a ' and no ". */
const quoteFor = (text: string) => (text.includes("'") && !text.includes('"') ? '"' : "'");

const hex = (code: number, width: number) => code.toString(16).padStart(width, '0');

/** Characters str.isprintable() rejects (besides the ASCII space, which it accepts). */
const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** repr() of a Python str. */
export function reprText(text: string): string {
  const quote = quoteFor(text);
  let out = quote;
  for (const ch of text) {
    const code = ch.codePointAt(0) as number;
    if (SIMPLE_ESCAPES[ch]) out += SIMPLE_ESCAPES[ch];
    else if (ch === quote) out += `\\${ch}`;
    else if (ch === ' ' || !NOT_PRINTABLE.test(ch)) out += ch;
    else if (code < 0x100) out += `\\x${hex(code, 2)}`;
    else if (code < 0x10000) out += `\\u${hex(code, 4)}`;
    else out += `\\U${hex(code, 8)}`;
  }
  return out + quote;
}

/** repr() of Python bytes: printable ASCII as is, everything else as \xNN. */
export function reprBytes(bytes: Uint8Array): string {
  const quote = quoteFor(Buffer.from(bytes).toString('latin1'));
  let out = `b${quote}`;
  for (const byte of bytes) {
    const ch = String.fromCharCode(byte);
    if (SIMPLE_ESCAPES[ch]) out += SIMPLE_ESCAPES[ch];
    else if (ch === quote) out += `\\${ch}`;
    else if (byte >= 0x20 && byte < 0x7f) out += ch;
    else out += `\\x${hex(byte, 2)}`;
  }
  return out + quote;
}
