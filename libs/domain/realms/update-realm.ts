import Joi from 'joi';
import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { requireRealmOwner } from '../permissions/roles';
import { realmUserAudience, requireRealmAdmin } from '../permissions/users';
import { LANGUAGES } from '../settings/user-settings';
import { MAX_TOPIC_LENGTH } from '../limits';
import { applyRealmGroupSettings, type RealmGroupSettingChanges } from './realm-group-settings';

const bool = () => Joi.boolean();

/**
 * Organization settings `PATCH /realm` changes, keyed by API name; each is the camelCase column
 * of the same name on Realm and produces a `realm` update event when it changes.
 */
export const REALM_SETTINGS = {
  name: Joi.string().trim().min(1).max(40),
  description: Joi.string().allow('').max(1000),
  invite_required: bool(),
  emails_restricted_to_domains: bool(),
  disallow_disposable_email_addresses: bool(),
  waiting_period_threshold: Joi.number().integer().min(0),
  send_welcome_emails: bool(),
  require_unique_names: bool(),
  email_changes_disabled: bool(),
  name_changes_disabled: bool(),
  avatar_changes_disabled: bool(),
  allow_message_editing: bool(),
  allow_edit_history: bool(),
  mandatory_topics: bool(),
  empty_topic_display_name: Joi.string().trim().min(1).max(MAX_TOPIC_LENGTH),
  enable_read_receipts: bool(),
  inline_image_preview: bool(),
  inline_url_embed_preview: bool(),
  default_code_block_language: Joi.string().allow(''),
  default_language: Joi.string().valid(...Object.keys(LANGUAGES)),
  enable_spectator_access: bool(),
  enable_guest_user_indicator: bool(),
  enable_guest_user_dm_warning: bool(),
  want_advertise_in_communities_directory: bool(),
  video_chat_provider: Joi.number().integer().valid(0, 1, 3, 4, 5),
  giphy_rating: Joi.number().integer().valid(0, 1, 2, 3),
  digest_emails_enabled: bool(),
  digest_weekday: Joi.number().integer().min(0).max(6),
  message_content_allowed_in_email_notifications: bool(),
} as const;

export type RealmSettingName = keyof typeof REALM_SETTINGS;
export type RealmSettingChanges = Partial<Record<RealmSettingName, boolean | number | string>>;

/** Settings only organization owners may change (Zulip, FL 143). */
const OWNER_ONLY: RealmSettingName[] = [
  'invite_required',
  'emails_restricted_to_domains',
  'disallow_disposable_email_addresses',
  'waiting_period_threshold',
];

const column = (name: string) => name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/** `PATCH /realm`: administrators change organization settings; one `realm` event per change. */
export async function updateRealm(
  ctx: AppContext,
  input: {
    actor: User;
    realm: Realm;
    changes: RealmSettingChanges;
    groupChanges?: RealmGroupSettingChanges;
  },
): Promise<void> {
  const { actor, realm, changes } = input;
  const groupChanges = input.groupChanges ?? {};
  requireRealmAdmin(actor);
  const names = (Object.keys(REALM_SETTINGS) as RealmSettingName[]).filter(
    (name) => changes[name] !== undefined,
  );
  if (names.some((n) => OWNER_ONLY.includes(n))) requireRealmOwner(actor);
  if (changes.enable_spectator_access === true && !ctx.config.webPublicStreamsEnabled) {
    throw badRequest('Server does not allow spectator access');
  }
  const current = realm as unknown as Record<string, unknown>;
  const changed = names.filter((n) => current[column(n)] !== changes[n]);
  if (changed.length === 0 && Object.keys(groupChanges).length === 0) return;
  await inTransaction(ctx, async (tx, events) => {
    const data: Record<string, unknown> = {};
    for (const name of changed) data[column(name)] = changes[name];
    // topicsPolicy is the modern form of mandatory_topics: keep both in step.
    if (changes.mandatory_topics !== undefined && changed.includes('mandatory_topics')) {
      data.topicsPolicy = changes.mandatory_topics ? 3 : 2;
    }
    await tx.realm.update({ where: { id: realm.id }, data });
    const audience = await realmUserAudience(tx, realm.id);
    for (const name of changed) {
      await events.emit(
        realm.id,
        { type: 'realm', op: 'update', property: name, value: changes[name] },
        audience,
      );
    }
    await applyRealmGroupSettings(tx, events, { realm, changes: groupChanges, audience });
  });
}
