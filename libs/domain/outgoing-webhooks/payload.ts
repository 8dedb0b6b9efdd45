import type { Message, Realm, Service, User } from '../../../generated/prisma/client';
import type { ApiMessage } from '../messages/types';
import { realmHost } from '../realms/realm-url';
import type { Config } from '../../core/config';
import type { WebhookTrigger } from './triggers';

/** Spec 4.22, native format: a JSON body. */
export interface NativeWebhookPayload {
  bot_email: string;
  bot_full_name: string;
  data: string;
  trigger: WebhookTrigger;
  token: string;
  message: ApiMessage;
}

export function nativePayload(input: {
  bot: Pick<User, 'email' | 'fullName'>;
  service: Pick<Service, 'token'>;
  message: Pick<Message, 'content'>;
  dict: ApiMessage;
  trigger: WebhookTrigger;
}): NativeWebhookPayload {
  return {
    bot_email: input.bot.email,
    bot_full_name: input.bot.fullName,
    data: input.message.content,
    trigger: input.trigger,
    token: input.service.token,
    message: input.dict,
  };
}

/**
 * Spec 4.22, third-party-compatible format: form fields with `T`/`C`/`U` prefixes. It exists
 * for channel messages only; a direct message has no channel to name.
 */
export function slackPayload(input: {
  bot: Pick<User, 'id'>;
  service: Pick<Service, 'token'>;
  realm: Pick<Realm, 'id' | 'stringId'>;
  config: Pick<Config, 'externalHost'>;
  message: Pick<Message, 'content'>;
  dict: ApiMessage;
  trigger: WebhookTrigger;
}): URLSearchParams {
  const { dict } = input;
  return new URLSearchParams([
    ['token', input.service.token],
    ['team_id', `T${input.realm.id}`],
    ['team_domain', realmHost(input.realm.stringId, input.config)],
    ['channel_id', `C${dict.stream_id}`],
    ['channel_name', String(dict.display_recipient)],
    ['thread_ts', String(dict.timestamp)],
    ['timestamp', String(dict.timestamp)],
    ['user_id', `U${dict.sender_id}`],
    ['user_name', dict.sender_full_name],
    ['text', input.message.content],
    ['trigger_word', input.trigger],
    ['service_id', String(input.bot.id)],
  ]);
}
