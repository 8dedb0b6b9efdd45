import type { Router } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { markdownContextFor } from '../../../libs/domain/markdown-context';
import { serverSettings } from '../../../libs/domain/server/server-settings';
import { open } from '../../../libs/http/route';
import { renderMarkdown } from '../../../libs/markdown';

export function serverRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/server_settings',
    open(ctx, {}, async ({ realm }) => {
      const description = realm
        ? (
            await renderMarkdown(
              realm.description,
              await markdownContextFor(ctx.db, ctx.config, realm),
            )
          ).html
        : '';
      return { ...serverSettings(ctx.config, realm, description) };
    }),
  );
}
