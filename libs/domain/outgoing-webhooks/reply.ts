import { ServiceInterface } from '../bots/service-token';

/** What the bot's answer asks for. */
export type WebhookReply =
  { kind: 'post'; content: string } | { kind: 'none' } | { kind: 'invalid'; reason: string };

/** The reply's text as Zulip reads it (`str(value)`); blank text posts nothing. */
function post(value: unknown): WebhookReply {
  if (value === undefined || value === null) return { kind: 'none' };
  const content = typeof value === 'string' ? value : JSON.stringify(value);
  return content.trim() === '' ? { kind: 'none' } : { kind: 'post', content };
}

/**
 * Zulip's process_success_response. Native: `response_not_required` posts nothing, else
 * `response_string` (deprecated) or `content` is posted; third-party-compatible: `text`.
 * A body that is not JSON, or JSON that is not an object, is an error the conversation and the
 * owner hear about; the JSON string "" (old bot servers' "no reply") posts nothing. A blank body
 * posts nothing too: spec 4.22 allows a blank response.
 */
export function parseReply(body: string, iface: number): WebhookReply {
  if (body.trim() === '') return { kind: 'none' };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { kind: 'invalid', reason: 'Invalid JSON in response' };
  }
  if (json === '') return { kind: 'none' };
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    return { kind: 'invalid', reason: 'Invalid response format' };
  }
  const reply = json as Record<string, unknown>;
  if (iface === ServiceInterface.SLACK) return post(reply.text);
  if (reply.response_not_required) return { kind: 'none' };
  if ('response_string' in reply) return post(reply.response_string);
  return post(reply.content);
}
