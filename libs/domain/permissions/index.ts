/**
 * The permission oracle: every "may this user do X" question is answered by a function exported
 * from this folder, one file per area (groups, email visibility, channels, messages, ...).
 * Routes and actions never compare roles or group IDs themselves.
 */
export { canSeeDeliveryEmail, EmailVisibility } from './email-visibility';
export { canAdministerBot, canCreateBot, seesAllBots } from './bots';
export { groupsContainingUser, isUserInGroup, recursiveGroupMemberIds } from './groups';
export {
  canAddSubscribersInRealm,
  canCreateChannel,
  channelAccess,
  channelAccessFor,
  webPublicChannelsEnabled,
  type ChannelAccess,
} from './channels';
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
export { canCreateUserGroups, userGroupAccess, type GroupAccess } from './user-groups';
export {
  canAccessChannel,
  canReadChannelHistory,
  channelSendRefusal,
  contentEditRefusal,
  deleteRefusal,
  mentionRefusal,
  moveRefusal,
} from './messages';
export { canAccessAttachment } from './attachments';
