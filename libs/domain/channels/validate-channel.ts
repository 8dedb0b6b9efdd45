import Joi from 'joi';
import { badRequest } from '../../core/errors';
import { P } from '../../core/schema';
import { MAX_STREAM_DESCRIPTION_LENGTH, MAX_STREAM_NAME_LENGTH } from '../length-limits';

/** Zulip's channel-name rules: trimmed, non-empty, bounded, no control or NUL characters. */
export function checkChannelName(raw: string): string {
  const name = raw.trim();
  if (name === '') throw badRequest("Channel name can't be empty.");
  if ([...name].length > MAX_STREAM_NAME_LENGTH) {
    throw badRequest(`Channel name too long (limit: ${MAX_STREAM_NAME_LENGTH} characters).`);
  }
  for (const [i, char] of [...name].entries()) {
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f-\u009f\ufffe\uffff]/.test(char)) {
      throw badRequest(`Invalid character in channel name, at position ${i + 1}.`);
    }
  }
  return name;
}

export function checkChannelDescription(description: string): string {
  if ([...description].length > MAX_STREAM_DESCRIPTION_LENGTH) {
    throw badRequest(
      `description is too long (limit: ${MAX_STREAM_DESCRIPTION_LENGTH} characters)`,
    );
  }
  return description;
}

/** `message_retention_days`: an integer of days, `realm_default` (null) or `unlimited` (-1). */
export const retentionDaysParam = P.jsonOrText(P.alternatives(P.int(), P.string(Joi.string())));

export function parseRetentionDays(value: string | number): number | null {
  if (value === 'realm_default') return null;
  if (value === 'unlimited') return -1;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(n) || n <= 0) {
    throw badRequest(`Bad value for 'message_retention_days': ${String(value)}`);
  }
  return n;
}
