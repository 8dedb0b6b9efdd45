import { RE2JS, RE2JSException, RE2JSSyntaxException } from 're2js';

/**
 * User-supplied regular expressions (linkifier patterns) run on RE2JS, a linear-time engine
 * with RE2's syntax (as Zulip uses RE2), so no pattern can hold the event loop.
 */

// RE2JS words its errors as Go's regexp does; Zulip shows RE2's (C++) wording.
const RE2_WORDING: Record<string, string> = {
  'missing closing )': 'missing )',
  'missing closing ]': 'missing ]',
  'unexpected )': 'unexpected )',
  'trailing backslash at end of expression': 'trailing \\',
  'missing argument to repetition operator': 'no argument for repetition operator',
  'invalid repeat count': 'bad repetition operator',
  'invalid nested repetition operator': 'bad repetition operator',
  'invalid or unsupported Perl syntax': 'invalid perl operator',
  'invalid named capture': 'invalid named capture group',
  'invalid escape sequence': 'invalid escape sequence',
  'invalid character class': 'invalid character class',
  'invalid character class range': 'invalid character class range',
  'invalid UTF-8': 'invalid UTF-8',
  'expression too large': 'pattern too large - compile failed',
  'expression nests too deeply': 'pattern too large - compile failed',
};

export class PatternError extends Error {}

/**
 * Instructions one stored pattern may compile to. Matching is linear in the text but also in
 * the pattern's size (`.{1000}.{1000}.{1000}` costs half a second on a long message), so a
 * pattern may not be huge; real linkifiers compile to a few dozen.
 */
export const MAX_PATTERN_PROGRAM_SIZE = 1000;

/** As compileSafePattern, for a pattern a user stores: also refuses huge ones, in RE2's words. */
export function compileStoredPattern(source: string): RE2JS {
  const re = compileSafePattern(source);
  if (re.programSize() > MAX_PATTERN_PROGRAM_SIZE) {
    throw new PatternError('pattern too large - compile failed');
  }
  return re;
}

/** Compiles with RE2 semantics; a pattern RE2 refuses throws PatternError in RE2's words. */
export function compileSafePattern(source: string): RE2JS {
  try {
    return RE2JS.compile(source);
  } catch (err) {
    if (err instanceof RE2JSSyntaxException) {
      const description = err.getDescription();
      const arg = err.getPattern();
      const text = RE2_WORDING[description] ?? description;
      throw new PatternError(arg ? `${text}: ${arg}` : text, { cause: err });
    }
    if (err instanceof RE2JSException) throw new PatternError(err.message, { cause: err });
    throw err;
  }
}
