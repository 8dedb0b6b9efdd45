import { createHash } from 'node:crypto';
import type { AppContext } from '../../core/context';
import type { LinkEmbed } from '../../markdown';
import { fetchPage, TRANSIENT, type FetchPageOptions } from './fetch-page';
import { previewOfPage } from './parse-page';

/** A page that could not be reached is asked for again after this long at most. */
const TRANSIENT_CACHE_SECONDS = 300;

/** Redis key of a URL's preview (Zulip's preview_url_cache_key): a digest, so any URL fits. */
export const previewCacheKey = (ctx: Pick<AppContext, 'config'>, url: string): string =>
  `${ctx.config.redisPrefix}url-preview:${createHash('sha256').update(url).digest('hex')}`;

/**
 * A link's preview, null when its page has none to give (not HTML, not public, too big, too
 * slow, no answer), from the Redis cache when a message linked it lately (as Zulip's
 * get_link_embed_data caches it), else fetched and cached for URL_PREVIEW_CACHE_SECONDS; a
 * page that may answer later (a timeout, a refused connection) is kept for 5 minutes at most.
 */
export async function linkPreview(
  ctx: Pick<AppContext, 'config' | 'redis' | 'log'>,
  url: string,
  options: FetchPageOptions = {},
): Promise<LinkEmbed | null> {
  const key = previewCacheKey(ctx, url);
  const cached = await ctx.redis.get(key);
  if (cached !== null) return JSON.parse(cached) as LinkEmbed | null;
  const started = Date.now();
  const page = await fetchPage(ctx.config, url, options);
  const preview = page.ok ? previewOfPage(page.html, page.url) : null;
  // The host only: a link's path and query can say more than the operator needs to see.
  ctx.log.info('worker', 'link preview fetched', {
    host: URL.canParse(url) ? new URL(url).host : '',
    ms: Date.now() - started,
    ...(page.ok ? { image: preview?.image !== null } : { refused: page.reason }),
  });
  const { cacheSeconds } = ctx.config.urlPreview;
  const seconds =
    !page.ok && TRANSIENT.has(page.reason)
      ? Math.min(cacheSeconds, TRANSIENT_CACHE_SECONDS)
      : cacheSeconds;
  if (seconds > 0) await ctx.redis.set(key, JSON.stringify(preview), 'EX', seconds);
  return preview;
}
