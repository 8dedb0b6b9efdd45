/**
 * The permission oracle: every "may this user do X" question is answered here, one file per area.
 * Routes and actions never compare roles or group IDs, nor test a channel's kind, themselves.
 * - Questions about objects (messages, channels, scheduled messages, users, bots, user groups,
 *   ...) go through the one entry point, `requireAccess` / `checkAccess({ auth, permission, ids
 *   })` (access.ts), answered as sets of IDs by set queries (access-queries.ts; the rules about
 *   users, bots and user groups in users.ts, bots.ts and user-groups.ts); `checkAccessMany`
 *   answers several channel permissions with one query.
 * - Organization-wide questions (may this user create a channel, invite, ...) are predicates on
 *   the user and the organization's settings; roles are compared only in roles.ts, channel kinds
 *   read only in channel-kinds.ts.
 * - Who hears of a change (`channelAudienceIds`, `messageAudience`) are sets of user IDs.
 */
export {
  checkAccess,
  checkAccessMany,
  Permission,
  requireAccess,
  type AccessRequest,
} from './access';
export { channelKindOf, isPrivateChannel, isWebPublicChannel } from './channel-kinds';
export { messageAudience } from './message-audience';
export { canSeeDeliveryEmail, EmailVisibility } from './email-visibility';
export { canCreateBot } from './bots';
export { groupsContainingUser, isUserInGroup, recursiveGroupMemberIds } from './groups';
export { canAddSubscribersInRealm, canCreateChannel, webPublicChannelsEnabled } from './channels';
export { userHasGroupSetting } from './group-settings';
export {
  isAtLeastModerator,
  isOwnerRole,
  isRealmAdmin,
  isRealmGuest,
  isRealmModerator,
  isRealmOwner,
  requireRealmOwner,
  roleFlags,
} from './roles';
export { canCreateUserGroups, type GroupAccess } from './user-groups';
export { channelSendRefusal } from './messages';
export { canAccessAttachment } from './attachments';
