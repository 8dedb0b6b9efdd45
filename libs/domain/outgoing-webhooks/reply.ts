import { ServiceInterface } from '../bots/service-token';

/** What the bot's answer asks for. */
export type WebhookReply =
  { kind: 'post'; content: string } | { kind: 'none' } | { kind: 'invalid'; reason: string };

/**
 * Spec 4.22: `{content}` is posted, `{response_not_required: true}` posts nothing; the
 * third-party-compatible form answers with `text`. A blank body posts nothing; a body that is
 * not JSON is an error the owner hears about.
 */
export function parseReply(body: string, iface: number): WebhookReply {
  if (body.trim() === '') return { kind: 'none' };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { kind: 'invalid', reason: 'Invalid JSON in response' };
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    return { kind: 'invalid', reason: 'Invalid response format' };
  }
  const reply = json as Record<string, unknown>;
  if (iface === ServiceInterface.SLACK) {
    return typeof reply.text === 'string' && reply.text !== ''
      ? { kind: 'post', content: reply.text }
      : { kind: 'none' };
  }
  if (reply.response_not_required === true) return { kind: 'none' };
  if (reply.content !== undefined && reply.content !== null) {
    const content = String(reply.content);
    return content === '' ? { kind: 'none' } : { kind: 'post', content };
  }
  return { kind: 'none' };
}
