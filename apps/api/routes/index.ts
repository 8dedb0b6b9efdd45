import { Router } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { authRoutes } from './auth';
import { channelRoutes } from './channels';
import { botRoutes } from './bots';
import { messageRoutes } from './messages';
import { reactionRoutes } from './reactions';
import { topicRoutes } from './topics';
import { pushDeviceRoutes } from './push-devices';
import { registerRoutes } from './register';
import { scheduledMessageRoutes } from './scheduled-messages';
import { serverRoutes } from './server';
import { subscriptionRoutes } from './subscriptions';
import { presenceRoutes } from './presence';
import { settingsRoutes } from './settings';
import { draftRoutes } from './drafts';
import { inviteRoutes } from './invites';
import { linkifierRoutes } from './linkifiers';
import { profileFieldRoutes } from './profile-fields';
import { realmDomainRoutes } from './realm-domains';
import { realmExportRoutes } from './realm-export';
import { realmIconRoutes } from './realm-icon';
import { realmEmojiRoutes } from './realm-emoji';
import { avatarRoutes } from './avatars';
import { realmSettingsRoutes } from './realm-settings';
import { userGroupRoutes } from './user-groups';
import { userAdminRoutes } from './user-admin';
import { userPreferenceRoutes } from './user-preferences';
import { userStatusRoutes } from './user-status';
import { userRoutes } from './users';
import { uploadRoutes } from './uploads';
import { realmPlaygroundRoutes } from './realm-playgrounds';
import { realmUserDefaultsRoutes } from './realm-user-defaults';
import { userCreateRoutes } from './user-create';
import { readReceiptRoutes } from './read-receipts';
import { topicDeleteRoutes } from './topic-delete';

/** Every `/api/v1` route of the API tier; each domain registers its own. */
export function apiRouter(ctx: AppContext): Router {
  const router = Router();
  for (const register of [
    serverRoutes,
    authRoutes,
    userRoutes,
    pushDeviceRoutes,
    settingsRoutes,
    userAdminRoutes,
    presenceRoutes,
    userStatusRoutes,
    userPreferenceRoutes,
    draftRoutes,
    scheduledMessageRoutes,
    linkifierRoutes,
    profileFieldRoutes,
    realmEmojiRoutes,
    realmSettingsRoutes,
    realmDomainRoutes,
    realmExportRoutes,
    realmIconRoutes,
    inviteRoutes,
    botRoutes,
    messageRoutes,
    reactionRoutes,
    topicRoutes,
    subscriptionRoutes,
    channelRoutes,
    userGroupRoutes,
    realmPlaygroundRoutes,
    realmUserDefaultsRoutes,
    userCreateRoutes,
    readReceiptRoutes,
    topicDeleteRoutes,
    registerRoutes,
    uploadRoutes,
    avatarRoutes,
  ]) {
    register(router, ctx);
  }
  return router;
}
