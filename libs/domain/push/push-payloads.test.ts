import { Trigger } from '../notifications/notification-rules';
import {
  apnsMessagePayload,
  gcmMessagePayload,
  pushText,
  removePayloads,
  truncate,
  type PushMessage,
  type PushRealm,
} from './push-payloads';

const realm: PushRealm = {
  id: 7,
  name: 'Acme',
  url: 'https://acme.example',
  server: 'acme.example',
};
const sender = { id: 1, email: 'a@acme.example', fullName: 'Ann', avatarUrl: 'https://x/a.png' };
const channelMessage: PushMessage = {
  id: 99,
  sender,
  dateSentSeconds: 1700000000,
  renderedContent: '<p>Hello <strong>team</strong> &amp; friends</p>',
  place: { kind: 'channel', channelId: 3, channelName: 'design', topic: 'logo' },
};
const group = [
  { id: 1, fullName: 'Ann' },
  { id: 2, fullName: 'Cy' },
  { id: 5, fullName: 'Bo' },
];

describe('push payloads (Zulip format)', () => {
  it('Android: base fields, message facts, plain content, high priority', () => {
    const { payload, options } = gcmMessagePayload(realm, 2, channelMessage);
    expect(payload).toEqual({
      server: 'acme.example',
      realm_id: 7,
      realm_uri: 'https://acme.example',
      realm_url: 'https://acme.example',
      realm_name: 'Acme',
      user_id: 2,
      sender_id: 1,
      sender_email: 'a@acme.example',
      time: 1700000000,
      recipient_type: 'stream',
      stream: 'design',
      stream_id: 3,
      topic: 'logo',
      event: 'message',
      zulip_message_id: 99,
      content: 'Hello team & friends',
      content_truncated: false,
      sender_full_name: 'Ann',
      sender_avatar_url: 'https://x/a.png',
    });
    expect(options).toEqual({ priority: 'high' });
  });

  it('iOS: title and subtitle say where and why', () => {
    expect(
      apnsMessagePayload({ realm, userId: 2, message: channelMessage, trigger: Trigger.MENTION }),
    ).toMatchObject({
      alert: {
        title: '#design > logo',
        subtitle: 'Ann mentioned you:',
        body: 'Hello team & friends',
      },
      sound: 'default',
      badge: 0,
      custom: { zulip: { message_ids: [99], recipient_type: 'stream', topic: 'logo' } },
    });
    const wildcard = apnsMessagePayload({
      realm,
      userId: 2,
      message: channelMessage,
      trigger: Trigger.STREAM_WILDCARD_MENTION,
    });
    expect(wildcard.alert).toMatchObject({ subtitle: 'Ann mentioned everyone:' });
    const topic = apnsMessagePayload({
      realm,
      userId: 2,
      message: channelMessage,
      trigger: Trigger.TOPIC_WILDCARD_MENTION,
    });
    expect(topic.alert).toMatchObject({ subtitle: 'Ann mentioned @topic:' });
    const followed = apnsMessagePayload({
      realm,
      userId: 2,
      message: channelMessage,
      trigger: Trigger.FOLLOWED_TOPIC,
    });
    expect(followed.alert).toMatchObject({ subtitle: 'Ann:' });
  });

  it('direct messages: the sender for 1:1, the participants and pm_users for groups', () => {
    const oneToOne: PushMessage = {
      ...channelMessage,
      place: { kind: 'direct', participants: group.slice(0, 2) },
    };
    expect(
      apnsMessagePayload({ realm, userId: 2, message: oneToOne, trigger: Trigger.DIRECT_MESSAGE })
        .alert,
    ).toMatchObject({
      title: 'Ann',
      subtitle: '',
    });
    expect(gcmMessagePayload(realm, 2, oneToOne).payload).toMatchObject({
      recipient_type: 'private',
    });
    expect(gcmMessagePayload(realm, 2, oneToOne).payload).not.toHaveProperty('pm_users');
    const groupDm: PushMessage = {
      ...channelMessage,
      place: { kind: 'direct', participants: group },
    };
    expect(gcmMessagePayload(realm, 2, groupDm).payload).toMatchObject({ pm_users: '1,2,5' });
    expect(
      apnsMessagePayload({ realm, userId: 2, message: groupDm, trigger: Trigger.DIRECT_MESSAGE })
        .alert,
    ).toMatchObject({
      title: 'Ann, Bo, Cy',
      subtitle: 'Ann:',
    });
  });

  it('removal: comma-separated ids, the first alone for old apps, normal priority', () => {
    const { gcm, gcmOptions, apns } = removePayloads(realm, 2, [4, 9]);
    expect(gcm).toMatchObject({
      event: 'remove',
      zulip_message_ids: '4,9',
      zulip_message_id: 4,
      user_id: 2,
    });
    expect(gcmOptions).toEqual({ priority: 'normal' });
    expect(apns).toMatchObject({
      badge: 0,
      custom: { zulip: { event: 'remove', zulip_message_ids: '4,9' } },
    });
  });

  it('content: text of the HTML, emoji by name, at most 200 characters', () => {
    expect(
      pushText('<p>a<br>b</p><blockquote><p>q</p></blockquote><p><img alt=":smile:" src="x"></p>'),
    ).toBe('a\nb\n> q\n:smile:');
    expect(truncate('x'.repeat(200))).toEqual({ content: 'x'.repeat(200), truncated: false });
    const long = truncate('y'.repeat(250));
    expect(long.truncated).toBe(true);
    expect(long.content).toHaveLength(200);
    expect(long.content.endsWith('…')).toBe(true);
  });
});
