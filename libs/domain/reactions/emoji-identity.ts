import type { Db, Tx } from '../../db/client';
import { badRequest } from '../../core/errors';
import { emojiCodeForName, emojiNameForCode, ZULIP_EXTRA_EMOJI } from '../../markdown';

type Reader = Db | Tx;

/** Stored reaction types (Zulip's names). The spec's `service_extra_emoji` is accepted as an alias. */
export type ReactionType = 'unicode_emoji' | 'realm_emoji' | 'zulip_extra_emoji';

export interface EmojiIdentity {
  emojiName: string;
  emojiCode: string;
  reactionType: ReactionType;
}

export function normalizeReactionType(type: string): string {
  return type === 'service_extra_emoji' ? 'zulip_extra_emoji' : type;
}

/** Zulip's emoji_name_to_emoji_code: custom emoji first, then the extra emoji, then Unicode. */
export async function emojiForName(
  db: Reader,
  realmId: number,
  name: string,
): Promise<EmojiIdentity> {
  const custom = await db.realmEmoji.findFirst({ where: { realmId, name, deactivated: false } });
  if (custom) return { emojiName: name, emojiCode: String(custom.id), reactionType: 'realm_emoji' };
  const extra = ZULIP_EXTRA_EMOJI.find((e) => e.name === name);
  if (extra)
    return { emojiName: name, emojiCode: extra.emojiCode, reactionType: 'zulip_extra_emoji' };
  const code = emojiCodeForName(name);
  if (code) return { emojiName: name, emojiCode: code, reactionType: 'unicode_emoji' };
  throw badRequest(`Emoji '${name}' does not exist`);
}

/** Zulip's check_emoji_request: the name, code and type the client sent must agree. */
export async function checkEmoji(
  db: Reader,
  realmId: number,
  identity: { emojiName: string; emojiCode: string; reactionType: string },
): Promise<EmojiIdentity> {
  const { emojiName, emojiCode } = identity;
  const reactionType = normalizeReactionType(identity.reactionType);
  if (reactionType === 'realm_emoji') {
    const id = /^\d+$/.test(emojiCode) ? Number(emojiCode) : -1;
    const custom = await db.realmEmoji.findFirst({ where: { realmId, id } });
    if (!custom) throw badRequest('Invalid custom emoji.');
    if (custom.name !== emojiName) throw badRequest('Invalid custom emoji name.');
    if (custom.deactivated) throw badRequest('This custom emoji has been deactivated.');
  } else if (reactionType === 'zulip_extra_emoji') {
    if (!ZULIP_EXTRA_EMOJI.some((e) => e.emojiCode === emojiCode)) {
      throw badRequest('Invalid emoji code.');
    }
    if (emojiName !== emojiCode) throw badRequest('Invalid emoji name.');
  } else if (reactionType === 'unicode_emoji') {
    if (emojiNameForCode(emojiCode) === undefined) throw badRequest('Invalid emoji code.');
    if (emojiCodeForName(emojiName) !== emojiCode) throw badRequest('Invalid emoji name.');
  } else {
    throw badRequest('Invalid emoji type.');
  }
  return { emojiName, emojiCode, reactionType: reactionType as ReactionType };
}
