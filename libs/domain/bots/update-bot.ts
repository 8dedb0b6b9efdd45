import { lockRow } from '../../db/locks';
import type { User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { inTransaction, type EventSink } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { checkFullName } from '../users/validate';
import { BotType } from '../users/roles';
import { botAdministratorIds } from '../permissions/bots';
import { ascendingIds } from '../permissions/roles';
import { isHttpUrl } from './create-bot';
import {
  botInclude,
  formatBotRecord,
  type ApiBotRecord,
  type BotWithRelations,
} from './format-bot';
import { ServiceInterface } from './service-token';
import { usersWhoCanAccess } from '../permissions/users';
import { realmUserEvent, type RealmUserUpdate } from '../../protocol/events/realm-user';
import { findAdministrableBot } from './find-bot';
import { botUpdate, realmBotEvent, type BotUpdatableField } from '../../protocol/events/realm-bot';

export interface UpdateBotInput {
  fullName?: string;
  botOwnerId?: number;
  servicePayloadUrl?: string;
  serviceInterface?: number;
}

/** What a `PATCH /bots/{id}` changes, checked. */
interface BotChanges {
  data: { fullName?: string; botOwnerId?: number };
  service: { baseUrl?: string; interface?: number };
  /** The changed values in Zulip's response shape. */
  response: Record<string, unknown>;
}

/** `PATCH /bots/{id}`; returns the changed values in Zulip's response shape. */
export async function updateBot(
  ctx: AppContext,
  actor: User,
  botId: number,
  input: UpdateBotInput,
): Promise<Record<string, unknown>> {
  return inTransaction(ctx, async (tx, events) => {
    // The bot's row locked first, then read and checked.
    await lockRow(tx, 'users', botId);
    const bot = await findAdministrableBot(tx, actor, botId);
    const changes = await checkBotChanges(tx, actor, bot, input);
    await tx.user.update({ where: { id: bot.id }, data: changes.data });
    if (Object.keys(changes.service).length) {
      await tx.service.updateMany({ where: { userId: bot.id }, data: changes.service });
    }
    const updated = await tx.user.findUniqueOrThrow({ where: { id: bot.id }, include: botInclude });
    await emitBotChanges(tx, events, {
      record: formatBotRecord(updated, ctx.config.secretKey),
      updated,
      previousOwnerId: bot.botOwnerId,
      changes,
    });
    return changes.response;
  });
}

async function checkBotChanges(
  tx: Tx,
  actor: User,
  bot: BotWithRelations,
  input: UpdateBotInput,
): Promise<BotChanges> {
  const changes: BotChanges = { data: {}, service: {}, response: {} };
  if (input.fullName !== undefined) {
    changes.data.fullName = checkFullName(input.fullName);
    changes.response.full_name = changes.data.fullName;
  }
  if (input.botOwnerId !== undefined) {
    const owner = await tx.user.findFirst({
      where: { id: input.botOwnerId, realmId: actor.realmId, isActive: true },
    });
    if (!owner) throw badRequest('Failed to change owner, no such user');
    if (owner.isBot) throw badRequest("Failed to change owner, bots can't own other bots");
    if (owner.id === bot.botOwnerId)
      throw badRequest('Failed to change owner, user is already the owner');
    changes.data.botOwnerId = owner.id;
    changes.response.bot_owner = owner.email;
  }
  if (input.servicePayloadUrl === undefined && input.serviceInterface === undefined) {
    return changes;
  }
  if (bot.botType !== BotType.OUTGOING_WEBHOOK || bot.services.length === 0)
    throw badRequest('This bot has no outgoing webhook service');
  if (input.servicePayloadUrl !== undefined) {
    if (!isHttpUrl(input.servicePayloadUrl)) throw badRequest('payload_url is not a URL');
    changes.service.baseUrl = input.servicePayloadUrl;
    changes.response.service_payload_url = input.servicePayloadUrl;
  }
  if (input.serviceInterface !== undefined) {
    if (!(Object.values(ServiceInterface) as number[]).includes(input.serviceInterface))
      throw badRequest('Invalid interface type');
    changes.service.interface = input.serviceInterface;
    changes.response.service_interface = input.serviceInterface;
  }
  return changes;
}

/**
 * As Zulip's patch_bot_backend: one `realm_bot` update per changed property, in its order (the
 * name, the owner, the service), each to who administers the bot at that moment. A new owner
 * who is not an administrator gets the whole bot (`add`) instead, a former owner who is not one
 * loses it (`delete`): `realm_bots` lists only the bots one administers. Everyone who sees the
 * bot in `realm_users` learns its new name and owner too.
 */
async function emitBotChanges(
  tx: Tx,
  events: EventSink,
  change: {
    record: ApiBotRecord;
    updated: User;
    previousOwnerId: number | null;
    changes: BotChanges;
  },
): Promise<void> {
  const { record, updated, previousOwnerId, changes } = change;
  const realmId = updated.realmId;
  const admins = await botAdministratorIds(tx, realmId, null);
  const administrators = (owner: number | null) =>
    owner === null ? admins : ascendingIds([...admins, owner]);
  const emitUpdate = (property: BotUpdatableField, audience: Set<number>) =>
    events.emit(
      realmId,
      realmBotEvent({ op: 'update', bot: botUpdate(updated.id, property, record) }),
      [...audience],
    );
  const ownerChanged = changes.data.botOwnerId !== undefined;
  if (changes.data.fullName !== undefined) {
    await emitUpdate('full_name', administrators(previousOwnerId));
  }
  if (ownerChanged) {
    if (previousOwnerId !== null && !admins.has(previousOwnerId)) {
      await events.emit(realmId, realmBotEvent({ op: 'delete', bot: { user_id: updated.id } }), [
        previousOwnerId,
      ]);
    }
    const owner = updated.botOwnerId;
    if (owner !== null && !admins.has(owner)) {
      await events.emit(realmId, realmBotEvent({ op: 'add', bot: record }), [owner]);
    }
    await emitUpdate('owner_id', admins);
  }
  if (Object.keys(changes.service).length) {
    await emitUpdate('services', administrators(updated.botOwnerId));
  }
  const person: RealmUserUpdate[] =
    changes.data.fullName !== undefined
      ? [{ user_id: updated.id, full_name: updated.fullName }]
      : [];
  if (ownerChanged) person.push({ user_id: updated.id, bot_owner_id: updated.botOwnerId });
  if (!person.length) return;
  const viewers = await usersWhoCanAccess(tx, updated);
  for (const update of person) {
    await events.emit(realmId, realmUserEvent({ op: 'update', person: update }), viewers);
  }
}
