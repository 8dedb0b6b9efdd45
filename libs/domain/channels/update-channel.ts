import type { Realm, Stream, User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { inTransaction, type EventSink } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import { renderMarkdown } from '../../markdown';
import type { AppContext } from '../../core/context';
import {
  applyGroupSettingUpdate,
  dropAnonymousGroup,
  type GroupSettingUpdate,
} from '../groups/group-setting-value';
import { markdownContextFor } from '../markdown-context';
import { enqueueOutgoingWebhooks } from '../outgoing-webhooks/triggers';
import {
  canCreateChannel,
  channelAccessFor,
  canManageDefaultChannels,
  requireCanSetChannelRetention,
  webPublicChannelsEnabled,
} from '../permissions/channels';
import type { ChannelGroupSetting } from '../subscriptions/subscribe';
import { channelAudienceIds } from './channel-audience';
import { formatChannels } from './format-channel';
import { unarchiveChannel } from './unarchive-channel';
import { checkChannelDescription, checkChannelName } from './validate-channel';
import { equalsIgnoringCase } from '../../db/text-match';

export interface UpdateChannelInput {
  actor: User;
  realm: Realm;
  streamId: number;
  description?: string;
  newName?: string;
  isPrivate?: boolean;
  isWebPublic?: boolean;
  historyPublicToSubscribers?: boolean;
  isDefaultStream?: boolean;
  /** Only `false` does anything: Zulip's API unarchives here but archives with DELETE. */
  isArchived?: boolean;
  /** undefined: unchanged; null: realm default; -1: unlimited. */
  messageRetentionDays?: number | null;
  groupSettings: Partial<Record<ChannelGroupSetting, GroupSettingUpdate>>;
}

const SETTING_COLUMN: Record<ChannelGroupSetting, keyof Stream> = {
  can_add_subscribers_group: 'canAddSubscribersGroupId',
  can_remove_subscribers_group: 'canRemoveSubscribersGroupId',
  can_administer_channel_group: 'canAdministerChannelGroupId',
  can_send_message_group: 'canSendMessageGroupId',
  can_subscribe_group: 'canSubscribeGroupId',
};
const CONTENT_ACCESS_SETTINGS: ChannelGroupSetting[] = [
  'can_add_subscribers_group',
  'can_subscribe_group',
];

/** Loads a channel the actor may administer, with Zulip's errors. */
export async function channelForAdmin(
  tx: Tx,
  actor: User,
  realm: Realm,
  streamId: number,
): Promise<{ stream: Stream; content: boolean }> {
  const stream = await tx.stream.findFirst({ where: { id: streamId, realmId: realm.id } });
  if (!stream) throw badRequest('Invalid channel ID');
  const access = await channelAccessFor(tx, actor, stream, realm);
  if (!access.metadata) throw badRequest('Invalid channel ID');
  if (!access.administer)
    throw badRequest('You do not have permission to administer this channel.');
  return { stream, content: access.content };
}

/** `PATCH /streams/{stream_id}` (spec 4.3 and the channel transitions of section 3). */
export async function updateChannel(ctx: AppContext, input: UpdateChannelInput): Promise<void> {
  const { actor, realm } = input;
  const rendered =
    input.description !== undefined
      ? (
          await renderMarkdown(
            checkChannelDescription(input.description),
            await markdownContextFor(ctx.db, ctx.config, realm),
          )
        ).html
      : undefined;
  const noticeId = await inTransaction(ctx, async (tx, events) => {
    const { stream, content } = await channelForAdmin(tx, actor, realm, input.streamId);
    const before = await channelAudienceIds(tx, realm.id, stream);
    let current = stream;
    let notice: number | null = null;
    // First, so the request's other changes apply to the restored channel.
    if (input.isArchived === false) {
      ({ stream: current, noticeId: notice } = await unarchiveChannel(
        ctx,
        tx,
        events,
        realm,
        current,
      ));
    }
    const emit = async (fields: Record<string, unknown>, extraUsers: number[] = []) => {
      const audience = await channelAudienceIds(tx, realm.id, current);
      await events.emit(
        realm.id,
        { type: 'stream', op: 'update', stream_id: current.id, name: current.name, ...fields },
        [...new Set([...audience, ...extraUsers])],
      );
    };

    if (input.newName !== undefined) {
      const name = checkChannelName(input.newName);
      if (name === stream.name) throw badRequest('Channel already has that name.');
      const clash = await tx.stream.findFirst({
        where: {
          realmId: realm.id,
          id: { not: stream.id },
          name: equalsIgnoringCase(name),
        },
      });
      if (clash) throw badRequest(`Channel name '${name}' is already taken.`);
      const oldName = current.name;
      current = await tx.stream.update({ where: { id: stream.id }, data: { name } });
      await emit({ property: 'name', value: name, name: oldName });
    }

    if (input.description !== undefined && rendered !== undefined) {
      current = await tx.stream.update({
        where: { id: stream.id },
        data: { description: input.description, renderedDescription: rendered },
      });
      await emit({
        property: 'description',
        value: input.description,
        rendered_description: rendered,
      });
    }

    await updatePrivacy(ctx, tx, input, current, content).then(async (next) => {
      if (!next) return;
      current = next;
      await emit(
        {
          property: 'invite_only',
          value: next.inviteOnly,
          history_public_to_subscribers: next.historyPublicToSubscribers,
          is_web_public: next.isWebPublic,
        },
        before,
      );
    });

    if (input.messageRetentionDays !== undefined) {
      requireCanSetChannelRetention(actor);
      current = await tx.stream.update({
        where: { id: stream.id },
        data: { messageRetentionDays: input.messageRetentionDays },
      });
      await emit({ property: 'message_retention_days', value: input.messageRetentionDays });
    }

    for (const [setting, update] of Object.entries(input.groupSettings) as [
      ChannelGroupSetting,
      GroupSettingUpdate,
    ][]) {
      if (CONTENT_ACCESS_SETTINGS.includes(setting) && !content) {
        throw badRequest('Invalid channel ID');
      }
      const column = SETTING_COLUMN[setting];
      const oldId = current[column] as number;
      const changed = await applyGroupSettingUpdate(tx, realm.id, setting, oldId, update, {
        allowInternet: false,
      });
      if (!changed) continue;
      current = await tx.stream.update({
        where: { id: stream.id },
        data: { [column]: changed.groupId },
      });
      await dropAnonymousGroup(tx, oldId);
      await emit({ property: setting, value: changed.value });
    }

    if (input.isDefaultStream !== undefined) {
      await setDefaultChannel(tx, events, actor, realm, current, input.isDefaultStream);
    }
    return notice;
  });
  if (noticeId !== null) await enqueueOutgoingWebhooks(ctx, noticeId);
}

async function updatePrivacy(
  ctx: AppContext,
  tx: Tx,
  input: UpdateChannelInput,
  stream: Stream,
  content: boolean,
): Promise<Stream | null> {
  const { isPrivate, isWebPublic, historyPublicToSubscribers } = input;
  if (
    isPrivate === undefined &&
    isWebPublic === undefined &&
    historyPublicToSubscribers === undefined
  ) {
    return null;
  }
  // Zulip's update_stream_backend: the proposed state as a whole must be valid.
  const inviteOnly = isPrivate ?? stream.inviteOnly;
  const webPublic = isWebPublic ?? stream.isWebPublic;
  // Without an explicit choice, private channels get protected history and public ones shared.
  const history =
    historyPublicToSubscribers ??
    (isPrivate !== undefined ? !isPrivate : stream.historyPublicToSubscribers);
  if (webPublic && (!history || inviteOnly)) throw badRequest('Invalid parameters');
  if (!inviteOnly && !history) throw badRequest('Invalid parameters');
  const isDefault =
    input.isDefaultStream ??
    (await tx.defaultStream.findUnique({ where: { streamId: stream.id } })) !== null;
  if (inviteOnly && isDefault) throw badRequest('A default channel cannot be private.');
  if (!inviteOnly && input.realm.moderationRequestChannelId === stream.id) {
    throw badRequest('Moderation request channel must be private.');
  }
  if (isPrivate !== undefined) {
    if (!content) throw badRequest('Channel content access is required.');
    if (!(await canCreateChannel(tx, input.actor, input.realm, isPrivate ? 'private' : 'public'))) {
      throw badRequest('Insufficient permission');
    }
  }
  if (webPublic && !stream.isWebPublic) {
    if (!webPublicChannelsEnabled(ctx.config, input.realm)) {
      throw badRequest('Web-public channels are not enabled.');
    }
    if (!(await canCreateChannel(tx, input.actor, input.realm, 'web-public'))) {
      throw badRequest('Insufficient permission');
    }
  }
  if (
    inviteOnly === stream.inviteOnly &&
    webPublic === stream.isWebPublic &&
    history === stream.historyPublicToSubscribers
  ) {
    return null;
  }
  return tx.stream.update({
    where: { id: stream.id },
    data: { inviteOnly, isWebPublic: webPublic, historyPublicToSubscribers: history },
  });
}

/** Adds or removes a default channel and tells everyone the new list. */
export async function setDefaultChannel(
  tx: Tx,
  events: EventSink,
  actor: User,
  realm: Realm,
  stream: Stream,
  isDefault: boolean,
): Promise<void> {
  if (!canManageDefaultChannels(actor)) throw badRequest('Must be an organization administrator');
  if (isDefault) {
    if (stream.inviteOnly) throw badRequest('Private channels cannot be made default.');
    await tx.defaultStream.upsert({
      where: { streamId: stream.id },
      create: { realmId: realm.id, streamId: stream.id },
      update: {},
    });
  } else {
    await tx.defaultStream.deleteMany({ where: { streamId: stream.id } });
  }
  const defaults = await tx.defaultStream.findMany({
    where: { realmId: realm.id },
    include: { stream: true },
    orderBy: { streamId: 'asc' },
  });
  const users = await tx.user.findMany({
    where: { realmId: realm.id, isActive: true },
    select: { id: true },
  });
  await events.emit(
    realm.id,
    {
      type: 'default_streams',
      default_streams: await formatChannels(
        tx,
        defaults.map((d) => d.stream),
      ),
    },
    users.map((u) => u.id),
  );
}
