import type { Realm, User } from '../../../generated/prisma/client';
import { uniqueViolation } from '../../db/errors';
import { inTransaction } from '../../events/outbox';
import { badRequest, insufficientPermission } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { canCreateBot } from '../permissions/bots';
import { fakeEmailDomain } from '../users/user-access';
import { createUserInTransaction, lockEmail } from '../users/create-user';
import { BotType, Role } from '../users/roles';
import { botAdministratorIds } from '../permissions/bots';
import { botInclude, formatBotRecord } from './format-bot';
import { generateServiceToken, ServiceInterface, type ServiceInterfaceCode } from './service-token';
import { realmBotEvent } from '../../protocol/events/realm-bot';

export interface CreateBotInput {
  realm: Realm;
  /** The bot's owner. */
  actor: User;
  fullName: string;
  shortName: string;
  botType: number;
  /** Outgoing-webhook bots only. */
  payloadUrl?: string;
  serviceName?: string;
  interface?: number;
  /** Operators (CLI) skip the organization's bot-creation permission. */
  skipPermissionCheck?: boolean;
}

export interface CreatedBot {
  bot: User;
  apiKey: string;
  serviceToken: string | null;
}

const SHORT_NAME = /^[a-z0-9._-]+$/i;
const BOT_TYPES: number[] = Object.values(BotType);

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * `<short-name>-bot@<realm_bot_domain>`, as Zulip forms bot emails (the organization's host, or
 * FAKE_EMAIL_DOMAIN when that host cannot end an address).
 */
export function botEmail(ctx: AppContext, realm: Realm, shortName: string): string {
  return `${shortName}-bot@${fakeEmailDomain(realm, ctx.config)}`.toLowerCase();
}

/** Validate -> authorize -> one transaction (bot user, its service, events). */
export async function createBot(ctx: AppContext, input: CreateBotInput): Promise<CreatedBot> {
  if (!BOT_TYPES.includes(input.botType)) throw badRequest('Invalid bot type');
  const shortName = input.shortName.trim();
  if (!shortName || !SHORT_NAME.test(shortName)) throw badRequest('Bad name or username');
  const isOutgoing = input.botType === BotType.OUTGOING_WEBHOOK;
  const iface = input.interface ?? ServiceInterface.NATIVE;
  if (isOutgoing) {
    if (!input.payloadUrl || !isHttpUrl(input.payloadUrl))
      throw badRequest('payload_url is not a URL');
    if (!(Object.values(ServiceInterface) as number[]).includes(iface))
      throw badRequest('Invalid interface type');
  }
  if (
    !input.skipPermissionCheck &&
    !(await canCreateBot(ctx.db, input.realm, input.actor, input.botType))
  ) {
    throw insufficientPermission();
  }
  const email = botEmail(ctx, input.realm, shortName);

  return inTransaction(ctx, async (tx, events) => {
    // Two requests for one name at once take turns here, so the second finds the first's bot.
    await lockEmail(tx, input.realm.id, email);
    const taken = await tx.user.findFirst({
      where: { realmId: input.realm.id, OR: [{ email }, { deliveryEmail: email }] },
      select: { id: true },
    });
    if (taken) throw badRequest('Username already in use');
    const { user, apiKey } = await createUserInTransaction(ctx, tx, events, {
      realm: input.realm,
      email,
      fullName: input.fullName,
      role: Role.MEMBER,
      bot: { type: input.botType, ownerId: input.actor.id },
      passwordHash: null,
    });
    let serviceToken: string | null = null;
    if (isOutgoing || input.botType === BotType.EMBEDDED) {
      serviceToken = generateServiceToken();
      await tx.service.create({
        data: {
          userId: user.id,
          name: input.serviceName?.trim() || shortName,
          baseUrl: isOutgoing ? (input.payloadUrl as string) : '',
          token: serviceToken,
          interface: iface as ServiceInterfaceCode,
        },
      });
    }
    const full = await tx.user.findUniqueOrThrow({ where: { id: user.id }, include: botInclude });
    await events.emit(
      input.realm.id,
      realmBotEvent({ op: 'add', bot: formatBotRecord(full, ctx.config.secretKey) }),
      [...(await botAdministratorIds(tx, input.realm.id, input.actor.id))],
    );
    return { bot: user, apiKey, serviceToken };
  }).catch((err: unknown) => {
    if (uniqueViolation(err, 'users_realm_id_email_key'))
      throw badRequest('Username already in use');
    throw err;
  });
}
