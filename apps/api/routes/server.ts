import type { Router } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { renderedRealmDescription } from '../../../libs/domain/server/realm-description';
import { serverSettings } from '../../../libs/domain/server/server-settings';
import { open } from '../../../libs/http/route';

export function serverRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/server_settings',
    open(ctx, {}, async ({ realm }) => {
      const description = realm ? await renderedRealmDescription(ctx, realm) : '';
      return { ...serverSettings(ctx.config, realm, description) };
    }),
  );
}
