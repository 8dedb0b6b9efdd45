import { Router } from 'express';
import type { AppContext } from '../../../libs/domain/context';
import { authRoutes } from './auth';
import { pushDeviceRoutes } from './push-devices';
import { serverRoutes } from './server';
import { userRoutes } from './users';

/** Every `/api/v1` route of the API tier; each domain registers its own. */
export function apiRouter(ctx: AppContext): Router {
  const router = Router();
  for (const register of [serverRoutes, authRoutes, userRoutes, pushDeviceRoutes]) {
    register(router, ctx);
  }
  return router;
}
