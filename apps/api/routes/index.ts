import { Router } from 'express';
import type { AppContext } from '../../../libs/domain/context';
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
import { realmEmojiRoutes } from './realm-emoji';
import { realmSettingsRoutes } from './realm-settings';
import { userGroupRoutes } from './user-groups';
import { userAdminRoutes } from './user-admin';
import { userPreferenceRoutes } from './user-preferences';
import { userStatusRoutes } from './user-status';
import { userRoutes } from './users';

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
    inviteRoutes,
    botRoutes,
    messageRoutes,
    reactionRoutes,
    topicRoutes,
    subscriptionRoutes,
    channelRoutes,
    userGroupRoutes,
    registerRoutes,
  ]) {
    register(router, ctx);
  }
  return router;
}
