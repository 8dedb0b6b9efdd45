import {
  accepts,
  clientForm,
  defineFormatter,
  type ClientForm,
  type EventFields,
} from '../formatter';
import type { ApiUser } from '../records';

/** A user as `realm_user` add events and `POST /register`'s `realm_users` carry them. */
export type RealmUserPerson = ApiUser;

type Id = { user_id: number };

/** The forms of a `realm_user` update Zulip documents: the user's id and one change. */
export type RealmUserUpdate =
  | (Id & Pick<ApiUser, 'full_name'>)
  | (Id & {
      avatar_url: string | null;
      avatar_source: string;
      avatar_url_medium: string;
      avatar_version: number;
    })
  | (Id & Pick<ApiUser, 'timezone'> & { email?: string })
  | (Id & { bot_owner_id: number | null })
  | (Id & Pick<ApiUser, 'role'>)
  | (Id & { is_billing_admin: boolean })
  | (Id & Pick<ApiUser, 'delivery_email'>)
  | (Id & {
      custom_profile_field: { id: number; value: string | null; rendered_value?: string };
    })
  | (Id & { new_email: string })
  | (Id & Pick<ApiUser, 'is_active'>);

/** A change to the organization's users. */
export type RealmUserEvent =
  | {
      type: 'realm_user';
      op: 'add';
      person: RealmUserPerson;
      /** The "Unknown user" placeholder, for those who may not see the new user. */
      internal?: { inaccessibleUser: true };
    }
  | { type: 'realm_user'; op: 'update'; person: RealmUserUpdate }
  | { type: 'realm_user'; op: 'remove'; person: { user_id: number; full_name: string } };

export const realmUserEvent = (fields: EventFields<RealmUserEvent>): RealmUserEvent => ({
  ...fields,
  type: 'realm_user',
});

export const realmUserFormatter = defineFormatter({
  reads: ['eventTypes', 'capabilities'],
  owner: () => [],
  format(event: RealmUserEvent, settings): ClientForm<RealmUserEvent>[] {
    // Zulip's "Unknown user" add goes only to clients that keep a complete user list.
    if (
      event.op === 'add' &&
      event.internal?.inaccessibleUser &&
      settings.capabilities.user_list_incomplete
    ) {
      return [];
    }
    return accepts(settings, 'realm_user') ? [clientForm(event)] : [];
  },
});
