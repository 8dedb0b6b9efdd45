import type { Realm } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import { renderMarkdown } from '../../markdown';
import { markdownContextFor } from '../markdown-context';
import { plainReadsOf } from '../realm-row-cache';

const rendered = new WeakMap<Realm, Promise<string>>();

/**
 * The organization's description as HTML, rendered once per organization row: two queries and a
 * Markdown pass made `GET /server_settings`, which every client calls before logging in, several
 * times as costly as an authenticated read. The principal cache hands out one row object per
 * organization until that row changes, so a changed description is rendered afresh; like Zulip's
 * cached description, it is not rendered again when only emoji or linkifiers change.
 */
export function renderedRealmDescription(ctx: AppContext, realm: Realm): Promise<string> {
  let html = rendered.get(realm);
  if (!html) {
    html = markdownContextFor(ctx.db, ctx.config, realm, plainReadsOf(ctx))
      .then((context) => renderMarkdown(realm.description, context))
      .then((result) => result.html);
    rendered.set(realm, html);
    html.catch(() => rendered.delete(realm));
  }
  return html;
}
