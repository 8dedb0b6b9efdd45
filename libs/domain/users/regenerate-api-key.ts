import type { User } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import { newStoredApiKey } from './api-keys';

/** Replaces a user's or bot's API key; the old one stops working at once. */
export async function regenerateApiKey(ctx: AppContext, user: User): Promise<string> {
  const { apiKey, stored } = newStoredApiKey(ctx.config.secretKey);
  await ctx.db.user.update({ where: { id: user.id }, data: stored });
  return apiKey;
}
