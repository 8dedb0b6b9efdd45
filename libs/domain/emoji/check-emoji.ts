import type { Db, Tx } from '../../db/client';
import { badRequest } from '../../core/errors';
import { emojiCodeForName, emojiNameForCode, ZULIP_EXTRA_EMOJI } from '../../markdown';

export type ReactionType = 'unicode_emoji' | 'realm_emoji' | 'zulip_extra_emoji';

export interface EmojiIdentity {
  emojiName: string;
  emojiCode: string;
  reactionType: ReactionType;
}

/** The spec's neutral name for Zulip's extra emoji namespace is accepted as an alias. */
function normalizeType(type: string): string {
  return type === 'service_extra_emoji' ? 'zulip_extra_emoji' : type;
}

/** Finds the code and namespace of an emoji given only its name (custom emoji first). */
async function emojiDataForName(
  db: Db | Tx,
  realmId: number,
  name: string,
): Promise<EmojiIdentity> {
  const custom = await db.realmEmoji.findFirst({
    where: { realmId, name, deactivated: false },
    select: { id: true },
  });
  if (custom) return { emojiName: name, emojiCode: String(custom.id), reactionType: 'realm_emoji' };
  if (ZULIP_EXTRA_EMOJI.some((e) => e.name === name)) {
    return { emojiName: name, emojiCode: name, reactionType: 'zulip_extra_emoji' };
  }
  const code = emojiCodeForName(name);
  if (code) return { emojiName: name, emojiCode: code, reactionType: 'unicode_emoji' };
  throw badRequest(`Emoji '${name}' does not exist`);
}

/**
 * Validates an emoji identity the way Zulip does for reactions and statuses; fills in the code
 * and namespace from the name when the client left them out.
 */
export async function checkEmoji(
  db: Db | Tx,
  realmId: number,
  input: { emojiName: string; emojiCode?: string; reactionType?: string },
): Promise<EmojiIdentity> {
  if (input.emojiCode === undefined || input.reactionType === undefined) {
    return emojiDataForName(db, realmId, input.emojiName);
  }
  const type = normalizeType(input.reactionType);
  const { emojiName: name, emojiCode: code } = input;
  if (type === 'realm_emoji') {
    const custom = /^\d+$/.test(code)
      ? await db.realmEmoji.findFirst({ where: { id: Number(code), realmId } })
      : null;
    if (!custom) throw badRequest('Invalid custom emoji.');
    if (custom.name !== name) throw badRequest('Invalid custom emoji name.');
    if (custom.deactivated) throw badRequest('This custom emoji has been deactivated.');
  } else if (type === 'zulip_extra_emoji') {
    if (!ZULIP_EXTRA_EMOJI.some((e) => e.emojiCode === code))
      throw badRequest('Invalid emoji code.');
    if (name !== code) throw badRequest('Invalid emoji name.');
  } else if (type === 'unicode_emoji') {
    if (emojiNameForCode(code) === undefined) throw badRequest('Invalid emoji code.');
    if (emojiCodeForName(name) !== code) throw badRequest('Invalid emoji name.');
  } else {
    throw badRequest('Invalid emoji type.');
  }
  return { emojiName: name, emojiCode: code, reactionType: type };
}
