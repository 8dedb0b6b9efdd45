import { Router } from 'express';
import type { AppContext } from '../../../libs/domain/context';
import { authRoutes } from './auth';
import { channelRoutes } from './channels';
import { pushDeviceRoutes } from './push-devices';
import { serverRoutes } from './server';
import { subscriptionRoutes } from './subscriptions';
import { userGroupRoutes } from './user-groups';
import { userRoutes } from './users';

/** Every `/api/v1` route of the API tier; each domain registers its own. */
export function apiRouter(ctx: AppContext): Router {
  const router = Router();
  for (const register of [
    serverRoutes,
    authRoutes,
    userRoutes,
    pushDeviceRoutes,
    subscriptionRoutes,
    channelRoutes,
    userGroupRoutes,
  ]) {
    register(router, ctx);
  }
  return router;
}
