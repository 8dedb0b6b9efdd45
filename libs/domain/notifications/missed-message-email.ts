import { hashEncode, streamNarrowUrl } from '../../markdown/mentions';
import type { OutgoingEmail } from '../email/transport';

/**
 * The missed-message email for one conversation (Zulip's missed_message email): the messages
 * with their sender and time, a link to the conversation, a link to the notification settings,
 * and a plain-text part beside the HTML. Replying by email is not offered; the email says so.
 */

export interface EmailConversation {
  kind: 'channel' | 'direct';
  channelId?: number;
  channelName?: string;
  topic?: string;
  /** Direct messages: the other participants (not the reader), sorted by id. */
  others?: { id: number; fullName: string }[];
}

export interface EmailMessage {
  id: number;
  senderName: string;
  sentAt: Date;
  /** Rendered HTML, or null when the content may not be included. */
  html: string | null;
  text: string | null;
}

export interface MissedMessageEmailInput {
  to: string;
  realmName: string;
  realmUrl: string;
  /** Zulip's realm_name_in_email_notifications_policy: 2 (always) names the organization. */
  realmNameInSubject: boolean;
  conversation: EmailConversation;
  messages: EmailMessage[];
  /** The address of this email's thread, stable for the same batch (see send-missed-message-emails). */
  messageIdHeader: string;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The web app's address of the conversation (a topic, or the direct-message narrow). */
export function conversationUrl(realmUrl: string, conversation: EmailConversation): string {
  if (conversation.kind === 'channel') {
    const channel = { id: conversation.channelId ?? 0, name: conversation.channelName ?? '' };
    return `${realmUrl}${streamNarrowUrl(channel)}/topic/${hashEncode(conversation.topic ?? '')}`;
  }
  const others = conversation.others ?? [];
  const [other, ...rest] = others;
  if (other && rest.length === 0) {
    return `${realmUrl}/#narrow/dm/${other.id}-${hashEncode(other.fullName.replace(/ /g, '-'))}`;
  }
  return `${realmUrl}/#narrow/dm/${others.map((o) => o.id).join(',')}-group`;
}

export const notificationSettingsUrl = (realmUrl: string) => `${realmUrl}/#settings/notifications`;

function subjectOf(input: MissedMessageEmailInput): string {
  const c = input.conversation;
  let subject: string;
  if (c.kind === 'channel') subject = `#${c.channelName} > ${c.topic}`;
  else {
    const names = (c.others ?? []).map((o) => o.fullName);
    subject = names.length === 1 ? `DMs with ${names[0]}` : `Group DMs with ${names.join(', ')}`;
  }
  return input.realmNameInSubject ? `[${input.realmName}] ${subject}` : subject;
}

const NO_REPLY =
  'Replying to this email does not reach the conversation: reply-by-email is not available on this server.';
const HIDDEN =
  'This email does not include message content because message content is turned off in your notification settings or by your organization.';

const when = (d: Date) =>
  d
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');

export function missedMessageEmail(input: MissedMessageEmailInput): OutgoingEmail {
  const link = conversationUrl(input.realmUrl, input.conversation);
  const settings = notificationSettingsUrl(input.realmUrl);
  const heading =
    input.conversation.kind === 'channel'
      ? `New messages in ${subjectOf({ ...input, realmNameInSubject: false })}, ${input.realmName}`
      : `New direct messages in ${input.realmName}`;

  const textMessages = input.messages.map(
    (m) => `${m.senderName} (${when(m.sentAt)}):\n${m.text ?? HIDDEN}`,
  );
  const text = [
    heading,
    ...textMessages,
    `View or reply in the app: ${link}`,
    NO_REPLY,
    `Manage email notifications: ${settings}`,
  ].join('\n\n');

  const htmlMessages = input.messages
    .map(
      (m) =>
        `<div class="message"><p class="sender"><b>${escapeHtml(m.senderName)}</b> <span class="time">${escapeHtml(when(m.sentAt))}</span></p>` +
        `<div class="content">${m.html ?? `<p><i>${escapeHtml(HIDDEN)}</i></p>`}</div></div>`,
    )
    .join('\n');
  const html = [
    '<html><body>',
    `<h3>${escapeHtml(heading)}</h3>`,
    htmlMessages,
    `<p><a href="${escapeHtml(link)}">View or reply in the app</a></p>`,
    `<p>${escapeHtml(NO_REPLY)}</p>`,
    `<p><a href="${escapeHtml(settings)}">Manage email notifications</a></p>`,
    '</body></html>',
  ].join('\n');

  return {
    to: input.to,
    subject: subjectOf(input),
    text: `${text}\n`,
    html,
    messageId: input.messageIdHeader,
  };
}
