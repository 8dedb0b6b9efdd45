import { lockRow } from '../../db/locks';
import type { User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { checkFullName } from '../users/validate';
import { BotType } from '../users/roles';
import { botAdministratorIds } from '../permissions/bots';
import { isHttpUrl } from './create-bot';
import { botInclude, formatBotRecord } from './format-bot';
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
    const data: { fullName?: string; botOwnerId?: number } = {};
    const response: Record<string, unknown> = {};
    if (input.fullName !== undefined) {
      data.fullName = checkFullName(input.fullName);
      response.full_name = data.fullName;
    }
    if (input.botOwnerId !== undefined) {
      const owner = await tx.user.findFirst({
        where: { id: input.botOwnerId, realmId: actor.realmId, isActive: true },
      });
      if (!owner) throw badRequest('Failed to change owner, no such user');
      if (owner.isBot) throw badRequest("Failed to change owner, bots can't own other bots");
      if (owner.id === bot.botOwnerId)
        throw badRequest('Failed to change owner, user is already the owner');
      data.botOwnerId = owner.id;
      response.bot_owner = owner.email;
    }
    const serviceChange: { baseUrl?: string; interface?: number } = {};
    if (input.servicePayloadUrl !== undefined || input.serviceInterface !== undefined) {
      if (bot.botType !== BotType.OUTGOING_WEBHOOK || bot.services.length === 0)
        throw badRequest('This bot has no outgoing webhook service');
      if (input.servicePayloadUrl !== undefined) {
        if (!isHttpUrl(input.servicePayloadUrl)) throw badRequest('payload_url is not a URL');
        serviceChange.baseUrl = input.servicePayloadUrl;
        response.service_payload_url = input.servicePayloadUrl;
      }
      if (input.serviceInterface !== undefined) {
        if (!(Object.values(ServiceInterface) as number[]).includes(input.serviceInterface))
          throw badRequest('Invalid interface type');
        serviceChange.interface = input.serviceInterface;
        response.service_interface = input.serviceInterface;
      }
    }
    await tx.user.update({ where: { id: bot.id }, data });
    if (Object.keys(serviceChange).length) {
      await tx.service.updateMany({ where: { userId: bot.id }, data: serviceChange });
    }
    const updated = await tx.user.findUniqueOrThrow({ where: { id: bot.id }, include: botInclude });
    const audience = await botAdministratorIds(tx, actor.realmId, updated.botOwnerId);
    if (bot.botOwnerId !== null) audience.add(bot.botOwnerId);
    // As Zulip: one event per changed property, each the bot's ID and that property.
    const record = formatBotRecord(updated, ctx.config.secretKey);
    const changed: BotUpdatableField[] = [];
    if (data.fullName !== undefined) changed.push('full_name');
    if (data.botOwnerId !== undefined) changed.push('owner_id');
    if (Object.keys(serviceChange).length) changed.push('services');
    for (const property of changed) {
      await events.emit(
        actor.realmId,
        realmBotEvent({ op: 'update', bot: botUpdate(bot.id, property, record) }),
        [...audience],
      );
    }
    // Everyone who sees the bot in realm_users learns its new name and owner too (Zulip's
    // do_change_full_name and do_change_bot_owner send both events).
    const person: RealmUserUpdate[] =
      data.fullName !== undefined ? [{ user_id: bot.id, full_name: updated.fullName }] : [];
    if (data.botOwnerId !== undefined) {
      person.push({ user_id: bot.id, bot_owner_id: updated.botOwnerId });
    }
    if (person.length) {
      const viewers = await usersWhoCanAccess(tx, updated);
      for (const change of person) {
        await events.emit(actor.realmId, realmUserEvent({ op: 'update', person: change }), viewers);
      }
    }
    return response;
  });
}
