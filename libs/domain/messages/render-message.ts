import type { Realm } from '../../../generated/prisma/client';
import { renderMarkdown } from '../../markdown';
import type { AppContext } from '../../core/context';
import { markdownContextFor } from '../markdown-context';
import { plainReadsOf } from '../realm-row-cache';
import { normalizeContent } from './content';

/** POST /messages/render: the HTML a message with this content would get; nothing is stored. */
export async function renderMessage(
  ctx: AppContext,
  realm: Realm,
  content: string,
): Promise<{ rendered: string }> {
  const body = normalizeContent(content);
  const rendered = await renderMarkdown(
    body,
    await markdownContextFor(ctx.db, ctx.config, realm, plainReadsOf(ctx)),
  );
  return { rendered: rendered.html };
}
