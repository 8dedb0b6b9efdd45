import { conversationUrl, missedMessageEmail } from './missed-message-email';

const base = {
  to: 'bo@acme.example',
  realmName: 'Acme',
  realmUrl: 'https://acme.example',
  realmNameInSubject: false,
  messageIdHeader: '<missed-2-10@acme.example>',
};
const messages = [
  {
    id: 10,
    senderName: 'Ann',
    sentAt: new Date('2026-11-25T07:00:00Z'),
    html: '<p>Hi <b>Bo</b> &lt;3</p>',
    text: 'Hi Bo <3',
  },
  {
    id: 11,
    senderName: 'Ann',
    sentAt: new Date('2026-11-25T07:01:00Z'),
    html: '<p>Still there?</p>',
    text: 'Still there?',
  },
];

describe('missed-message email', () => {
  it('a direct conversation: subject, both parts, links, no reply-by-email', () => {
    const email = missedMessageEmail({
      ...base,
      conversation: { kind: 'direct', others: [{ id: 1, fullName: 'Ann Lee' }] },
      messages,
    });
    expect(email.subject).toBe('DMs with Ann Lee');
    expect(email.messageId).toBe('<missed-2-10@acme.example>');
    for (const part of [email.text, email.html]) {
      expect(part).toContain('https://acme.example/#narrow/dm/1-Ann-Lee');
      expect(part).toContain('https://acme.example/#settings/notifications');
      expect(part).toContain('reply-by-email is not available');
      expect(part).toContain('2026-11-25 07:00:00 UTC');
    }
    expect(email.text).toContain('Ann (2026-11-25 07:00:00 UTC):\nHi Bo <3');
    expect(email.text).toContain('Still there?');
    expect(email.html).toContain('<p>Hi <b>Bo</b> &lt;3</p>');
  });

  it('a channel topic, a group conversation, the organization in the subject', () => {
    const topic = missedMessageEmail({
      ...base,
      realmNameInSubject: true,
      conversation: {
        kind: 'channel',
        channelId: 4,
        channelName: 'design team',
        topic: 'logo (v2)',
      },
      messages,
    });
    expect(topic.subject).toBe('[Acme] #design team > logo (v2)');
    expect(topic.text).toContain(
      'https://acme.example/#narrow/channel/4-design-team/topic/logo.20.28v2.29',
    );
    const groupDm = missedMessageEmail({
      ...base,
      conversation: {
        kind: 'direct',
        others: [
          { id: 1, fullName: 'Ann' },
          { id: 3, fullName: 'Cy' },
        ],
      },
      messages,
    });
    expect(groupDm.subject).toBe('Group DMs with Ann, Cy');
    expect(
      conversationUrl(base.realmUrl, {
        kind: 'direct',
        others: [
          { id: 1, fullName: 'Ann' },
          { id: 3, fullName: 'Cy' },
        ],
      }),
    ).toBe('https://acme.example/#narrow/dm/1,3-group');
  });

  it('without message content, says why instead', () => {
    const email = missedMessageEmail({
      ...base,
      conversation: { kind: 'direct', others: [{ id: 1, fullName: 'Ann' }] },
      messages: messages.map((m) => ({ ...m, html: null, text: null })),
    });
    expect(email.text).not.toContain('Still there?');
    expect(email.html).not.toContain('Still there?');
    expect(email.text).toContain('does not include message content');
  });
});
