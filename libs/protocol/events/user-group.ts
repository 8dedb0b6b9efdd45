import type { ApiUserGroup } from '../records';
import { accepts, defineFormatter, type EventFields } from '../formatter';

/** `user_group` events. */
export type UserGroupEvent =
  | { type: 'user_group'; op: 'add'; group: ApiUserGroup }
  | {
      type: 'user_group';
      op: 'update';
      group_id: number;
      data: Partial<Omit<ApiUserGroup, 'id' | 'members' | 'direct_subgroup_ids'>>;
    }
  | {
      type: 'user_group';
      op: 'add_members' | 'remove_members';
      group_id: number;
      user_ids: number[];
    }
  | {
      type: 'user_group';
      op: 'add_subgroups' | 'remove_subgroups';
      group_id: number;
      direct_subgroup_ids: number[];
    };

/** What a client without include_deactivated_groups learns of a group's deactivation. */
export interface UserGroupRemoveEvent {
  type: 'user_group';
  op: 'remove';
  group_id: number;
}

export const userGroupEvent = (fields: EventFields<UserGroupEvent>): UserGroupEvent => ({
  ...fields,
  type: 'user_group',
});

export const userGroupFormatter = defineFormatter({
  reads: ['eventTypes', 'capabilities'],
  owner: () => [],
  format(event: UserGroupEvent, settings): (UserGroupEvent | UserGroupRemoveEvent)[] {
    if (!accepts(settings, 'user_group')) return [];
    // Clients that do not keep deactivated groups drop the group, as Zulip tells them (FL 294).
    if (
      event.op === 'update' &&
      event.data.deactivated === true &&
      !settings.capabilities.include_deactivated_groups
    ) {
      return [{ type: 'user_group', op: 'remove', group_id: event.group_id }];
    }
    return [event];
  },
});
