import type { ApiUserGroup } from '../records';
import { plainFormatter, type EventFields } from '../formatter';

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

export const userGroupEvent = (fields: EventFields<UserGroupEvent>): UserGroupEvent => ({
  ...fields,
  type: 'user_group',
});

export const userGroupFormatter = plainFormatter<UserGroupEvent>();
