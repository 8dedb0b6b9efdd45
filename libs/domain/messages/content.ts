import { badRequest } from '../../core/errors';
import { MAX_MESSAGE_LENGTH } from '../length-limits';

export const TRUNCATION_NOTICE = '\n[message truncated]';

/**
 * Zulip's normalize_body + truncate_content: trailing whitespace and leading blank lines go,
 * empty text and NUL bytes are refused, and text over the limit is cut with a notice.
 */
export function normalizeContent(raw: string): string {
  const body = raw.replace(/\s+$/u, '').replace(/^\n+/, '');
  if (body.length === 0) throw badRequest('Message must not be empty');
  if (body.includes('\u0000')) throw badRequest('Message must not contain null bytes');
  const chars = [...body];
  if (chars.length <= MAX_MESSAGE_LENGTH) return body;
  return chars.slice(0, MAX_MESSAGE_LENGTH - TRUNCATION_NOTICE.length).join('') + TRUNCATION_NOTICE;
}
