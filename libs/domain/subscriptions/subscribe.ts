import type { Realm, Stream, User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { lockRow, lockRows } from '../../db/locks';
import { inTransaction, type EventSink } from '../../events/outbox';
import Joi from 'joi';
import { badRequest } from '../../core/errors';
import { P, type Infer } from '../../core/schema';
import { renderMarkdown } from '../../markdown';
import { channelAudienceIds } from '../permissions/channels';
import {
  channelKindOf,
  historyPublicForNewChannel,
  isPrivateChannel,
  isWebPublicChannel,
} from '../permissions/channel-kinds';
import { formatChannels } from '../channels/format-channel';
import { insertChannel } from '../channels/insert-channel';
import { requireNonGuest } from '../permissions/users';
import { checkChannelDescription, checkChannelName } from '../channels/validate-channel';
import type { AppContext } from '../../core/context';
import { resolveGroupSetting, type GroupSettingValue } from '../groups/group-setting-value';
import { systemGroupIds } from '../groups/system-groups';
import { markdownContextFor } from '../markdown-context';
import { plainReadsOf } from '../realm-row-cache';
import { checkAccess, Permission } from '../permissions/access';
import {
  canAddSubscribersInRealm,
  canCreateChannel,
  canManageDefaultChannels,
  requireCanSetChannelRetention,
  webPublicChannelsEnabled,
} from '../permissions/channels';
import { sendChannelCreationNotices } from './creation-notices';
import { sendSubscribedYouMessages } from './subscription-notices';
import { formatSubscriptions, subscriberIdsByRecipient } from './format-subscription';
import { emitGuestAccessEvents } from './guest-access-events';
import { insertSubscriptions } from './insert-subscriptions';
import { emitPeerAdd } from './peer-events';
import { equalsIgnoringCase } from '../../db/text-match';
import { streamEvent } from '../../protocol/events/stream';
import { subscriptionEvent } from '../../protocol/events/subscription';
import { at } from '../../core/at';

export const CHANNEL_GROUP_SETTINGS = [
  'can_add_subscribers_group',
  'can_remove_subscribers_group',
  'can_administer_channel_group',
  'can_send_message_group',
  'can_subscribe_group',
] as const;
export type ChannelGroupSetting = (typeof CHANNEL_GROUP_SETTINGS)[number];

/** One requested subscription, as POST's `subscriptions` and PATCH's `add` carry it. */
export const requestedSubscription = P.object({
  name: P.string().required(),
  color: P.string(Joi.string()),
  description: P.string(),
});
export type RequestedSubscription = Infer<typeof requestedSubscription>;

export interface SubscribeInput {
  actor: User;
  realm: Realm;
  /** `color` applies to subscriptions created by this request, as Zulip's `color_map`. */
  subscriptions: RequestedSubscription[];
  principals?: (string | number)[];
  authorizationErrorsFatal: boolean;
  announce: boolean;
  inviteOnly: boolean;
  isWebPublic: boolean;
  isDefaultStream: boolean;
  historyPublicToSubscribers?: boolean;
  /** undefined: not given; null: realm default; -1: unlimited. */
  messageRetentionDays?: number | null;
  groupSettings: Partial<Record<ChannelGroupSetting, GroupSettingValue>>;
}

export interface SubscribeResult {
  subscribed: Record<string, string[]>;
  already_subscribed: Record<string, string[]>;
  unauthorized?: string[];
}

/** Looks up principals (user IDs or API emails) among the organization's active users. */
export async function resolvePrincipals(
  tx: Tx,
  realmId: number,
  principals: (string | number)[],
): Promise<User[]> {
  const ids = principals.filter((p): p is number => typeof p === 'number');
  const emails = principals.filter((p): p is string => typeof p === 'string');
  const users = await tx.user.findMany({
    where: {
      realmId,
      isActive: true,
      OR: [{ id: { in: ids } }, { email: { in: emails, mode: 'insensitive' } }],
    },
  });
  for (const p of principals) {
    const found = users.some((u) =>
      typeof p === 'number' ? u.id === p : u.email.toLowerCase() === p.toLowerCase(),
    );
    if (!found) throw badRequest('No such user');
  }
  return users;
}

/** A subscribe request validated and with its descriptions rendered, ready for the transaction. */
export interface PreparedSubscribe {
  input: SubscribeInput;
  /** Requested channel names by lowercased name, first spelling kept. */
  requested: Map<string, string>;
  descriptions: Map<string, string>;
  renderedDescriptions: Map<string, string>;
  colors: Map<string, string>;
}

/** Zulip's check_color on each requested subscription's `color`, named as the request names it. */
export function checkColors(entries: { color?: string }[], param: string): void {
  entries.forEach((entry, i) => {
    if (entry.color !== undefined && !/^#[a-fA-F0-9]{3,6}$/.test(entry.color)) {
      throw badRequest(`${param}[${i}]["color"] is not a valid hex color code`);
    }
  });
}

/** Checks and Markdown rendering, done before any transaction opens. */
export async function prepareSubscribe(
  ctx: AppContext,
  input: SubscribeInput,
): Promise<PreparedSubscribe> {
  requireNonGuest(input.actor);
  const requested = new Map<string, string>();
  for (const entry of input.subscriptions) {
    const name = checkChannelName(entry.name);
    if (entry.description !== undefined) checkChannelDescription(entry.description);
    if (!requested.has(name.toLowerCase())) requested.set(name.toLowerCase(), name);
  }
  const descriptions = new Map(
    input.subscriptions.map((s) => [s.name.trim().toLowerCase(), s.description ?? '']),
  );
  const colors = new Map(
    input.subscriptions.flatMap((s) =>
      s.color === undefined ? [] : [[s.name.trim().toLowerCase(), s.color] as const],
    ),
  );
  const md = await markdownContextFor(ctx.db, ctx.config, input.realm, plainReadsOf(ctx));
  const renderedDescriptions = new Map<string, string>();
  for (const [key, description] of descriptions) {
    renderedDescriptions.set(key, description ? (await renderMarkdown(description, md)).html : '');
  }
  return { input, requested, descriptions, renderedDescriptions, colors };
}

/**
 * `POST /users/me/subscriptions`: creates the channels that do not exist (with the creation
 * parameters), then subscribes the requester or the principals.
 */
export async function subscribe(ctx: AppContext, input: SubscribeInput): Promise<SubscribeResult> {
  const prepared = await prepareSubscribe(ctx, input);
  return inTransaction(ctx, (tx, events) => subscribeWithin(ctx, tx, events, prepared));
}

/**
 * The transactional part of subscribing, inside the caller's transaction. Returns the response.
 */
export async function subscribeWithin(
  ctx: AppContext,
  tx: Tx,
  events: EventSink,
  prepared: PreparedSubscribe,
): Promise<SubscribeResult> {
  const { input, requested } = prepared;
  const { actor, realm } = input;
  const existing = await findRequestedChannels(tx, realm, requested);
  const existingByKey = new Map(existing.map((s) => [s.name.toLowerCase(), s]));
  const toCreate = [...requested.entries()].filter(([key]) => !existingByKey.has(key));

  const targets = input.principals?.length
    ? await resolvePrincipals(tx, realm.id, input.principals)
    : [actor];
  // A user's subscriptions change one request at a time: what insertSubscriptions reads of them
  // is what it writes over.
  await lockRows(
    tx,
    'users',
    targets.map((u) => u.id),
  );
  const othersTargeted = targets.some((u) => u.id !== actor.id);
  if (toCreate.length) await requireCanCreate(ctx, tx, input);
  const { allowed, unauthorized } = await authorizeExisting(tx, input, {
    existing,
    othersTargeted,
    creating: toCreate.length > 0,
  });
  const created = await createChannels(tx, events, { prepared, toCreate, targets });
  const channels = [...allowed, ...created];
  const { subscribed, already } = await subscribeTargets(tx, events, {
    prepared,
    channels,
    targets,
  });
  await sendSubscribedYouMessages(ctx, tx, events, {
    realm,
    actor,
    targets,
    subscribed,
    created,
  });
  // After the subscriptions, so the new channels' subscribers receive their notices.
  await sendChannelCreationNotices(ctx, tx, events, {
    realm,
    actor,
    created,
    announce: input.announce,
  });

  const result: SubscribeResult = { subscribed, already_subscribed: already };
  if (!input.authorizationErrorsFatal) result.unauthorized = unauthorized;
  return result;
}

/** The requested channels that exist, read again after taking turns when one is to be made. */
async function findRequestedChannels(
  tx: Tx,
  realm: Realm,
  requested: Map<string, string>,
): Promise<Stream[]> {
  const findExisting = () =>
    tx.stream.findMany({
      where: {
        realmId: realm.id,
        OR: [...requested.values()].map((name) => ({
          name: equalsIgnoringCase(name),
        })),
      },
    });
  const existing = await findExisting();
  if (existing.length === requested.size) return existing;
  // A channel to create: creations in the organization take turns on its row, and the names
  // are read again once it is this request's turn, so two requests for one new name make one
  // channel, and the second subscribes to it.
  await lockRow(tx, 'realms', realm.id);
  return findExisting();
}

/** Permission to create channels of the requested kind. */
async function requireCanCreate(ctx: AppContext, tx: Tx, input: SubscribeInput): Promise<void> {
  const { actor, realm } = input;
  const kind = channelKindOf(input);
  if (isWebPublicChannel(input) && !webPublicChannelsEnabled(ctx.config, realm)) {
    throw badRequest('Web-public channels are not enabled.');
  }
  if (!(await canCreateChannel(tx, actor, realm, kind))) {
    throw badRequest('Insufficient permission');
  }
  if (input.messageRetentionDays !== undefined) requireCanSetChannelRetention(actor);
  if (input.isDefaultStream && !canManageDefaultChannels(actor)) {
    throw badRequest('Insufficient permission');
  }
  if (input.isDefaultStream && isPrivateChannel(input)) {
    throw badRequest('A default channel cannot be private.');
  }
}

/**
 * Authorization on existing channels (spec 2.2), then on subscribing others at all: the channels
 * the request may subscribe its targets to, and the names of the others.
 */
async function authorizeExisting(
  tx: Tx,
  input: SubscribeInput,
  request: { existing: Stream[]; othersTargeted: boolean; creating: boolean },
): Promise<{ allowed: Stream[]; unauthorized: string[] }> {
  const { actor, realm } = input;
  const { existing, othersTargeted } = request;
  const realmAdd = othersTargeted ? await canAddSubscribersInRealm(tx, actor, realm) : false;
  if (othersTargeted && request.creating && !realmAdd) throw badRequest('Insufficient permission');
  const ids = existing.map((s) => s.id);
  const permitted = await checkAccess(
    tx,
    othersTargeted
      ? { auth: { user: actor, realm }, permission: Permission.ChannelAddSubscribers, ids }
      : { auth: { user: actor }, permission: Permission.ChannelSubscribe, ids },
  );
  const unauthorized: string[] = [];
  const allowed: Stream[] = [];
  for (const stream of existing) {
    if (permitted.has(stream.id)) allowed.push(stream);
    else unauthorized.push(stream.name);
  }
  if (unauthorized.length && input.authorizationErrorsFatal) {
    if (othersTargeted) throw badRequest('Insufficient permission');
    throw badRequest(`Unable to access channel (${unauthorized[0]}).`);
  }
  return { allowed, unauthorized };
}

/** The group settings a request gives its new channels, as group IDs. */
async function channelGroupSettingIds(
  tx: Tx,
  input: SubscribeInput,
): Promise<Partial<Record<ChannelGroupSetting, number>>> {
  const settingIds: Partial<Record<ChannelGroupSetting, number>> = {};
  for (const setting of CHANNEL_GROUP_SETTINGS) {
    const value = input.groupSettings[setting];
    if (value !== undefined) {
      settingIds[setting] = await resolveGroupSetting(tx, {
        realmId: input.realm.id,
        settingName: setting,
        value,
        rules: { allowInternet: false },
      });
    }
  }
  return settingIds;
}

/** Creates the channels that do not exist yet and tells who may see them. */
async function createChannels(
  tx: Tx,
  events: EventSink,
  request: { prepared: PreparedSubscribe; toCreate: [string, string][]; targets: User[] },
): Promise<Stream[]> {
  const { prepared, toCreate, targets } = request;
  const { input, descriptions, renderedDescriptions } = prepared;
  const { actor, realm } = input;
  if (toCreate.length === 0) return [];
  const groups = await systemGroupIds(tx, realm.id);
  const settingIds = await channelGroupSettingIds(tx, input);
  const created: Stream[] = [];
  for (const [key, name] of toCreate) {
    const stream = await insertChannel(tx, groups, {
      realmId: realm.id,
      name,
      description: descriptions.get(key) ?? '',
      renderedDescription: renderedDescriptions.get(key) ?? '',
      creatorId: actor.id,
      inviteOnly: input.inviteOnly,
      isWebPublic: input.isWebPublic,
      // Zulip forces full history on public and web-public channels.
      historyPublicToSubscribers: historyPublicForNewChannel(input),
      messageRetentionDays: input.messageRetentionDays ?? null,
      canAddSubscribersGroupId: settingIds.can_add_subscribers_group,
      canRemoveSubscribersGroupId: settingIds.can_remove_subscribers_group,
      // Zulip's default is "stream_creator_or_nobody": the creator administers their channel.
      canAdministerChannelGroupId:
        settingIds.can_administer_channel_group ??
        (await resolveGroupSetting(tx, {
          realmId: realm.id,
          settingName: 'can_administer_channel_group',
          value: { direct_members: [actor.id], direct_subgroups: [] },
        })),
      canSendMessageGroupId: settingIds.can_send_message_group,
      canSubscribeGroupId: settingIds.can_subscribe_group,
    });
    if (input.isDefaultStream) {
      await tx.defaultStream.create({ data: { realmId: realm.id, streamId: stream.id } });
    }
    created.push(stream);
  }
  for (const stream of created) {
    const dict = at(await formatChannels(tx, [stream]), 0);
    const audience = [...(await channelAudienceIds(tx, realm.id, stream))];
    const withTargets = isPrivateChannel(stream)
      ? [...new Set([...audience, ...targets.map((u) => u.id)])]
      : audience;
    await events.emit(realm.id, streamEvent({ op: 'create', streams: [dict] }), withTargets);
  }
  return created;
}

/** Subscribes each target to each channel; the response's names, by user ID, new and already. */
async function subscribeTargets(
  tx: Tx,
  events: EventSink,
  request: { prepared: PreparedSubscribe; channels: Stream[]; targets: User[] },
): Promise<{ subscribed: Record<string, string[]>; already: Record<string, string[]> }> {
  const { prepared, channels, targets } = request;
  const pairs = channels.flatMap((stream) =>
    targets.map((u) => ({
      userId: u.id,
      recipientId: stream.recipientId as number,
      color: prepared.colors.get(stream.name.toLowerCase()),
    })),
  );
  const fresh = await insertSubscriptions(tx, pairs);
  const freshKey = new Set(fresh.map((p) => `${p.userId}:${p.recipientId}`));
  const subscribed: Record<string, string[]> = {};
  const already: Record<string, string[]> = {};
  for (const u of targets) {
    for (const stream of channels) {
      const bucket = freshKey.has(`${u.id}:${stream.recipientId}`) ? subscribed : already;
      (bucket[String(u.id)] ??= []).push(stream.name);
    }
  }
  await emitSubscriptionEvents(tx, events, prepared.input.realm.id, channels, fresh);
  return { subscribed, already };
}

async function emitSubscriptionEvents(
  tx: Tx,
  events: EventSink,
  realmId: number,
  channels: Stream[],
  fresh: { userId: number; recipientId: number }[],
): Promise<void> {
  if (fresh.length === 0) return;
  const byRecipient = new Map(channels.map((s) => [s.recipientId as number, s]));
  const subscribers = await subscriberIdsByRecipient(tx, [...byRecipient.keys()]);
  const subs = await tx.subscription.findMany({
    where: { OR: fresh.map((p) => ({ userId: p.userId, recipientId: p.recipientId })) },
  });
  const byUser = new Map<number, typeof subs>();
  for (const sub of subs) byUser.set(sub.userId, [...(byUser.get(sub.userId) ?? []), sub]);
  for (const [userId, userSubs] of byUser) {
    const dicts = await formatSubscriptions(
      tx,
      userSubs.map((sub) => ({ sub, stream: byRecipient.get(sub.recipientId) as Stream })),
      subscribers,
    );
    await events.emit(realmId, subscriptionEvent({ op: 'add', subscriptions: dicts }), [userId]);
  }
  await emitGuestAccessEvents(tx, events, realmId, 'add', fresh);
  await emitPeerAdd(tx, events, realmId, channels, fresh);
}
