import { lockRow } from '../../db/locks';
import type { Prisma, Realm, Stream, User } from '../../../generated/prisma/client';
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
import { plainReadsOf } from '../realm-row-cache';
import {
  canCreateChannel,
  requireCanSetChannelRetention,
  webPublicChannelsEnabled,
} from '../permissions/channels';
import type { ChannelGroupSetting } from '../subscriptions/subscribe';
import { channelAudienceIds } from '../permissions/channels';
import {
  isHistoryPublicToSubscribers,
  isPrivateChannel,
  isWebPublicChannel,
} from '../permissions/channel-kinds';
import { unarchiveChannel } from './unarchive-channel';
import { checkChannelDescription, checkChannelName } from './validate-channel';
import { equalsIgnoringCase } from '../../db/text-match';
import { channelForAdmin } from './channel-for-admin';
import { setDefaultChannel } from './set-default-channel';
import { streamEvent, type StreamPropertyChange } from '../../protocol/events/stream';
import { subscriptionEvent } from '../../protocol/events/subscription';
import { subscriberIdsByRecipient } from '../subscriptions/format-subscription';
import { formatChannels } from './format-channel';

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

/**
 * Who may subscribe, or add subscribers, decides who reaches the messages, so only an
 * administrator with content access may change these (Zulip answers the others as if the
 * channel did not exist).
 */
const CONTENT_ACCESS_SETTINGS: ChannelGroupSetting[] = [
  'can_add_subscribers_group',
  'can_subscribe_group',
];

/** A channel as one request changes it: `current` is the row as last written. */
interface ChannelChange {
  tx: Tx;
  events: EventSink;
  realm: Realm;
  current: Stream;
}

/** `PATCH /streams/{stream_id}` (spec 4.3 and the channel transitions of section 3). */
export async function updateChannel(ctx: AppContext, input: UpdateChannelInput): Promise<void> {
  const { actor, realm } = input;
  // Rendered before the transaction, which then stays short.
  const rendered =
    input.description !== undefined
      ? (
          await renderMarkdown(
            checkChannelDescription(input.description),
            await markdownContextFor(ctx.db, ctx.config, realm, plainReadsOf(ctx)),
          )
        ).html
      : undefined;
  await inTransaction(ctx, async (tx, events) => {
    // The channel's row locked first: two changes of it at once take turns, each reading what the other wrote.
    await lockRow(tx, 'streams', input.streamId);
    const { stream, content } = await channelForAdmin(tx, actor, realm, input.streamId);
    // Who could see the channel before: a privacy change tells those who lose sight of it.
    const before = [...(await channelAudienceIds(tx, realm.id, stream))];
    const change: ChannelChange = { tx, events, realm, current: stream };
    // First, so the request's other changes apply to the restored channel.
    if (input.isArchived === false) {
      ({ stream: change.current } = await unarchiveChannel(ctx, tx, events, realm, stream));
    }
    if (input.newName !== undefined) await rename(change, input.newName);
    if (input.description !== undefined && rendered !== undefined) {
      await update(change, { description: input.description, renderedDescription: rendered });
      await emitChange(change, {
        property: 'description',
        value: input.description,
        rendered_description: rendered,
      });
    }
    const next = await updatePrivacy(ctx, tx, input, change.current, content);
    if (next) {
      change.current = next;
      await emitPrivacyChange(change, before, {
        property: 'invite_only',
        value: next.inviteOnly,
        history_public_to_subscribers: next.historyPublicToSubscribers,
        is_web_public: next.isWebPublic,
      });
    }
    // Retention deletes messages, so it needs more than channel administration (the oracle says
    // who).
    if (input.messageRetentionDays !== undefined) {
      requireCanSetChannelRetention(actor);
      await update(change, { messageRetentionDays: input.messageRetentionDays });
      await emitChange(change, {
        property: 'message_retention_days',
        value: input.messageRetentionDays,
      });
    }
    await updateGroupSettings(change, input.groupSettings, content);
    // Last, so that it sees the channel's new privacy.
    if (input.isDefaultStream !== undefined) {
      await setDefaultChannel(tx, events, {
        actor,
        realm,
        stream: change.current,
        isDefault: input.isDefaultStream,
      });
    }
  });
}

async function update(change: ChannelChange, data: Prisma.StreamUpdateInput): Promise<void> {
  change.current = await change.tx.stream.update({ where: { id: change.current.id }, data });
}

/**
 * One event per changed property, as Zulip sends them, each to the channel's audience at that
 * point; `name` is the current name, except on a rename, which carries the old one.
 */
async function emitChange(
  change: ChannelChange,
  fields: StreamPropertyChange & { name?: string },
): Promise<void> {
  const { tx, events, realm, current } = change;
  await events.emit(
    realm.id,
    streamEvent({ op: 'update', stream_id: current.id, name: current.name, ...fields }),
    [...(await channelAudienceIds(tx, realm.id, current))],
  );
}

/**
 * A privacy change as Zulip's do_change_stream_permission tells it: whoever loses sight of the
 * channel gets a `stream` `delete`, whoever gains it a `create` and a `peer_add` of its
 * subscribers (they knew none of them), and those who saw it before and after the update.
 */
async function emitPrivacyChange(
  change: ChannelChange,
  before: number[],
  fields: StreamPropertyChange,
): Promise<void> {
  const { tx, events, realm, current } = change;
  const after = await channelAudienceIds(tx, realm.id, current);
  const gained = [...after].filter((id) => !before.includes(id));
  const lost = before.filter((id) => !after.has(id));
  const streams = await formatChannels(tx, [current]);
  await events.emit(realm.id, streamEvent({ op: 'delete', streams }), lost);
  await events.emit(realm.id, streamEvent({ op: 'create', streams }), gained);
  const recipientId = current.recipientId ?? -1;
  const subscribers = (await subscriberIdsByRecipient(tx, [recipientId])).get(recipientId) ?? [];
  if (subscribers.length) {
    await events.emit(
      realm.id,
      subscriptionEvent({
        op: 'peer_add',
        stream_ids: [current.id],
        user_ids: subscribers,
      }),
      gained,
    );
  }
  await events.emit(
    realm.id,
    streamEvent({ op: 'update', stream_id: current.id, name: current.name, ...fields }),
    before.filter((id) => after.has(id)),
  );
}

async function rename(change: ChannelChange, newName: string): Promise<void> {
  // The clash check ignores case but skips this channel, so a change of case alone is allowed.
  const name = checkChannelName(newName);
  const oldName = change.current.name;
  if (name === oldName) throw badRequest('Channel already has that name.');
  const clash = await change.tx.stream.findFirst({
    where: {
      realmId: change.realm.id,
      id: { not: change.current.id },
      name: equalsIgnoringCase(name),
    },
  });
  if (clash) throw badRequest(`Channel name '${name}' is already taken.`);
  await update(change, { name });
  await emitChange(change, { property: 'name', value: name, name: oldName });
}

/** The channel's permission settings; `content`: the actor has content access. */
async function updateGroupSettings(
  change: ChannelChange,
  updates: UpdateChannelInput['groupSettings'],
  content: boolean,
): Promise<void> {
  const { tx, realm } = change;
  for (const [setting, update] of Object.entries(updates) as [
    ChannelGroupSetting,
    GroupSettingUpdate,
  ][]) {
    if (CONTENT_ACCESS_SETTINGS.includes(setting) && !content) {
      throw badRequest('Invalid channel ID');
    }
    const column = SETTING_COLUMN[setting];
    const oldId = change.current[column] as number;
    // Channel permissions never name role:internet (Zulip's allow_internet_group=False).
    const changed = await applyGroupSettingUpdate(tx, {
      realmId: realm.id,
      settingName: setting,
      currentGroupId: oldId,
      update,
      rules: { allowInternet: false },
    });
    if (!changed) continue;
    change.current = await tx.stream.update({
      where: { id: change.current.id },
      data: { [column]: changed.groupId },
    });
    // An anonymous group (an ad-hoc set of users and groups) belonged to this setting alone.
    await dropAnonymousGroup(tx, oldId);
    await emitChange(change, { property: setting, value: changed.value });
  }
}

/**
 * `is_private`, `is_web_public` and `history_public_to_subscribers` together; the changed channel,
 * or null when nothing changes (then no event is sent).
 */
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
  // Web-public implies public with shared history; a public channel's history is always shared.
  if (webPublic && (!history || inviteOnly)) throw badRequest('Invalid parameters');
  if (!inviteOnly && !history) throw badRequest('Invalid parameters');
  const isDefault =
    input.isDefaultStream ??
    (await tx.defaultStream.findUnique({ where: { streamId: stream.id } })) !== null;
  // New users are subscribed to default channels, so those must stay public; moderation requests
  // go to a channel only moderators should read, so that one must stay private.
  if (inviteOnly && isDefault) throw badRequest('A default channel cannot be private.');
  if (!inviteOnly && input.realm.moderationRequestChannelId === stream.id) {
    throw badRequest('Moderation request channel must be private.');
  }
  // Changing privacy needs content access and the right to create a channel of the new kind.
  if (isPrivate !== undefined) {
    if (!content) throw badRequest('Channel content access is required.');
    if (!(await canCreateChannel(tx, input.actor, input.realm, isPrivate ? 'private' : 'public'))) {
      throw badRequest('Insufficient permission');
    }
  }
  if (webPublic && !isWebPublicChannel(stream)) {
    if (!webPublicChannelsEnabled(ctx.config, input.realm)) {
      throw badRequest('Web-public channels are not enabled.');
    }
    if (!(await canCreateChannel(tx, input.actor, input.realm, 'web-public'))) {
      throw badRequest('Insufficient permission');
    }
  }
  if (
    inviteOnly === isPrivateChannel(stream) &&
    webPublic === isWebPublicChannel(stream) &&
    history === isHistoryPublicToSubscribers(stream)
  ) {
    return null;
  }
  return tx.stream.update({
    where: { id: stream.id },
    data: { inviteOnly, isWebPublic: webPublic, historyPublicToSubscribers: history },
  });
}
