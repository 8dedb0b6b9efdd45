import { lockRow } from '../../db/locks';
import Joi from 'joi';
import type { Realm, User } from '../../../generated/prisma/client';
import { P, type InferShape } from '../../core/schema';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { requireRealmOwner } from '../permissions/roles';
import { realmUserAudience, requireRealmAdmin } from '../permissions/users';
import { LANGUAGES } from '../settings/user-settings';
import { MAX_TOPIC_LENGTH } from '../length-limits';
import { applyRealmGroupSettings, type RealmGroupSettingChanges } from './realm-group-settings';
import { realmEvent } from '../../protocol/events/realm';

/**
 * Organization settings `PATCH /realm` changes, keyed by API name; each is the camelCase column
 * of the same name on Realm and produces a `realm` update event when it changes.
 */
export const REALM_SETTINGS = {
  name: P.string(Joi.string().trim().min(1).max(40)),
  description: P.string(Joi.string().allow('').max(1000)),
  invite_required: P.bool(),
  emails_restricted_to_domains: P.bool(),
  disallow_disposable_email_addresses: P.bool(),
  waiting_period_threshold: P.int(Joi.number().integer().min(0)),
  send_welcome_emails: P.bool(),
  require_unique_names: P.bool(),
  email_changes_disabled: P.bool(),
  name_changes_disabled: P.bool(),
  avatar_changes_disabled: P.bool(),
  allow_message_editing: P.bool(),
  allow_edit_history: P.bool(),
  mandatory_topics: P.bool(),
  empty_topic_display_name: P.string(Joi.string().trim().min(1).max(MAX_TOPIC_LENGTH)),
  enable_read_receipts: P.bool(),
  inline_image_preview: P.bool(),
  inline_url_embed_preview: P.bool(),
  default_code_block_language: P.string(),
  default_language: P.oneOf(...Object.keys(LANGUAGES)),
  enable_spectator_access: P.bool(),
  enable_guest_user_indicator: P.bool(),
  enable_guest_user_dm_warning: P.bool(),
  want_advertise_in_communities_directory: P.bool(),
  video_chat_provider: P.int(Joi.number().integer().valid(0, 1, 3, 4, 5)),
  giphy_rating: P.int(Joi.number().integer().valid(0, 1, 2, 3)),
  digest_emails_enabled: P.bool(),
  digest_weekday: P.int(Joi.number().integer().min(0).max(6)),
  message_content_allowed_in_email_notifications: P.bool(),
} as const;

export type RealmSettingName = keyof typeof REALM_SETTINGS;
export type RealmSettingChanges = InferShape<typeof REALM_SETTINGS>;

/** Settings only organization owners may change (Zulip, FL 143). */
const OWNER_ONLY: RealmSettingName[] = [
  'invite_required',
  'emails_restricted_to_domains',
  'disallow_disposable_email_addresses',
  'waiting_period_threshold',
];

const column = (name: string) => name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/**
 * `PATCH /realm`: administrators (or, with `actor` null, the operator at the command line) change
 * organization settings; one `realm` event per change.
 */
export async function updateRealm(
  ctx: AppContext,
  input: {
    actor: User | null;
    realm: Realm;
    changes: RealmSettingChanges;
    groupChanges?: RealmGroupSettingChanges;
  },
): Promise<void> {
  const { actor, realm, changes } = input;
  const groupChanges = input.groupChanges ?? {};
  const names = (Object.keys(REALM_SETTINGS) as RealmSettingName[]).filter(
    (name) => changes[name] !== undefined,
  );
  if (actor) {
    requireRealmAdmin(actor);
    if (names.some((n) => OWNER_ONLY.includes(n))) requireRealmOwner(actor);
  }
  if (changes.enable_spectator_access === true && !ctx.config.webPublicStreamsEnabled) {
    throw badRequest('Server does not allow spectator access');
  }
  const current = realm as unknown as Record<string, unknown>;
  const changed = names.filter((n) => current[column(n)] !== changes[n]);
  if (changed.length === 0 && Object.keys(groupChanges).length === 0) return;
  await inTransaction(ctx, async (tx, events) => {
    // The organization's row locked first: settings changes take turns.
    await lockRow(tx, 'realms', realm.id);
    const data: Record<string, unknown> = {};
    for (const name of changed) data[column(name)] = changes[name];
    // topicsPolicy is the modern form of mandatory_topics: keep both in step.
    if (changes.mandatory_topics !== undefined && changed.includes('mandatory_topics')) {
      data.topicsPolicy = changes.mandatory_topics ? 3 : 2;
    }
    await tx.realm.update({ where: { id: realm.id }, data });
    const audience = await realmUserAudience(tx, realm.id);
    for (const name of changed) {
      const value = changes[name];
      if (value === undefined) continue;
      await events.emit(realm.id, realmEvent({ op: 'update', property: name, value }), audience);
    }
    await applyRealmGroupSettings(tx, events, { realm, changes: groupChanges, audience });
  });
}
