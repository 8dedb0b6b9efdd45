import { Prisma, type RealmUserDefault } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import {
  settingColumn,
  USER_SETTING_NAMES,
  type UserSettingName,
  type UserSettingValue,
} from '../settings/user-settings';

const COLUMNS = new Set<string>(Object.values(Prisma.RealmUserDefaultScalarFieldEnum));

/** The personal settings an organization keeps a default for: all but the time zone. */
export const DEFAULT_SETTING_NAMES: readonly UserSettingName[] = USER_SETTING_NAMES.filter((name) =>
  COLUMNS.has(settingColumn(name)),
);

/**
 * Defaults Zulip leaves to each user: the language (chosen at sign-up), security and marketing
 * emails, and consent to private data export.
 */
const USER_CHOSEN = new Set<UserSettingName>([
  'default_language',
  'enable_login_emails',
  'enable_marketing_emails',
  'allow_private_data_export',
]);

/** What `PATCH /realm/user_settings_defaults` may change. */
export const EDITABLE_DEFAULT_NAMES: readonly UserSettingName[] = DEFAULT_SETTING_NAMES.filter(
  (name) => !USER_CHOSEN.has(name),
);

export function defaultValue(row: RealmUserDefault, name: UserSettingName): UserSettingValue {
  return row[settingColumn(name) as keyof RealmUserDefault] as UserSettingValue;
}

/** The organization's defaults row; realms get one at creation, older ones on first use. */
export async function realmUserDefaultRow(db: Db | Tx, realmId: number): Promise<RealmUserDefault> {
  const row = await db.realmUserDefault.findUnique({ where: { realmId } });
  return row ?? db.realmUserDefault.upsert({ where: { realmId }, create: { realmId }, update: {} });
}

/** Every default, keyed by API name (the `realm_user_settings_defaults` state). */
export async function realmUserDefaults(
  db: Db | Tx,
  realmId: number,
): Promise<Record<string, UserSettingValue>> {
  const row = await realmUserDefaultRow(db, realmId);
  return Object.fromEntries(DEFAULT_SETTING_NAMES.map((name) => [name, defaultValue(row, name)]));
}

/** The User columns a new person starts with, copied from the organization's defaults. */
export async function newUserSettings(
  tx: Tx,
  realmId: number,
): Promise<Partial<Prisma.UserUncheckedCreateInput>> {
  const row = await realmUserDefaultRow(tx, realmId);
  return Object.fromEntries(
    DEFAULT_SETTING_NAMES.map((name) => [settingColumn(name), defaultValue(row, name)]),
  );
}
