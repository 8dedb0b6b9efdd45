import express, { type Express, type Router } from 'express';
import path from 'node:path';
import type { AppContext } from '../../libs/core/context';
import { EMOJI_DATA_PATH, emojiApiData } from '../../libs/domain/server/emoji-data';
import { errorHandler, unknownRoute } from '../../libs/http/error-handler';
import { bodyParsers } from '../../libs/http/body-parsers';
import { overloadGuard } from '../../libs/http/overload';
import { tierApp } from '../../libs/http/tier-app';
import { apiRouter } from './routes';
import { externalContentRoutes } from './routes/external-content';
import { userAvatarRoutes } from './routes/avatars';
import { realmExportFileRoutes } from './routes/realm-export';
import { webClientRoutes } from './web-client';
import { webSessionRoutes } from './web-session';
import { passwordResetRoutes } from './accounts/password-reset';
import { socialAuthRoutes } from './accounts/social';
import { samlRoutes } from './accounts/saml';
import { scimRoutes } from './scim';
import { twoFactorRoutes } from './accounts/two-factor';
import { sessionAuth } from '../../libs/http/session';
import { uploadFileRoutes } from './routes/uploads';
import { thumbnailRoutes } from './routes/thumbnail';

/**
 * The stateless API tier: every `/api/v1` route except the event queue's, the same routes under
 * `/json` for the web client's session, and the web client itself at `/`. `events` mounts the
 * event queue's routes too, when one process serves every tier on one origin.
 */
export function createApiApp(ctx: AppContext, options: { events?: Router } = {}): Express {
  const app = tierApp(ctx);
  // Before any work of the request: past capacity, refuse at once rather than queue.
  app.use(overloadGuard(ctx));
  // SCIM parses its own `application/scim+json` bodies and answers every refusal in SCIM's form.
  app.use('/scim/v2', scimRoutes(ctx));
  // Zulip parameters are flat form fields; lists and objects arrive as JSON text inside them.
  // Uploads parse their own bodies; other routes are held to their own body limit.
  app.use(bodyParsers());
  // The web client's routes: sign-in, then every other `/json/` route behind its session.
  app.use('/json', webSessionRoutes(ctx));
  app.use('/json', sessionAuth(ctx));
  app.use('/json', twoFactorRoutes(ctx));
  if (options.events) {
    app.use('/api/v1', options.events);
    app.use('/json', options.events);
  }
  const api = apiRouter(ctx);
  app.use('/api/v1', api);
  app.use('/json', api);
  // Images in messages load with the page's session cookie.
  app.use('/user_uploads', sessionAuth(ctx, false));
  app.use(uploadFileRoutes(ctx));
  // Where image previews point when the camo proxy is off.
  app.use(thumbnailRoutes(ctx));
  app.use(externalContentRoutes(ctx));
  app.use(realmExportFileRoutes(ctx));
  app.use(userAvatarRoutes(ctx));
  // The emoji names register's `server_emoji_data_url` points clients to.
  const emojiData = JSON.stringify(emojiApiData());
  app.get(EMOJI_DATA_PATH, (_req, res) => {
    res.type('json').set('Cache-Control', 'public, max-age=86400').send(emojiData);
  });
  // Zulip's static paths that API responses name, e.g. the avatar of users a guest cannot access.
  app.use(
    '/static',
    express.static(path.join(__dirname, 'static'), { maxAge: '1d', index: false }),
  );
  app.use(passwordResetRoutes(ctx));
  app.use(socialAuthRoutes(ctx));
  app.use(samlRoutes(ctx));
  app.use(webClientRoutes(ctx));
  app.get('/health', (_req, res) => {
    res.json({ result: 'success', msg: '' });
  });
  app.use(unknownRoute);
  app.use(errorHandler(ctx.log));
  return app;
}
