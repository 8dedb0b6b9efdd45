import {
  accepts,
  clientForm,
  defineFormatter,
  type ClientForm,
  type EventFields,
} from '../formatter';

/** A user as `realm_user` add events and `POST /register`'s `realm_users` carry them. */
export type RealmUserPerson = { user_id: number } & object;

/** A change to the organization's users. */
export type RealmUserEvent =
  | {
      type: 'realm_user';
      op: 'add';
      person: RealmUserPerson;
      /** The "Unknown user" placeholder, for those who may not see the new user. */
      internal?: { inaccessibleUser: true };
    }
  | { type: 'realm_user'; op: 'update'; person: { user_id: number; [field: string]: unknown } }
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
