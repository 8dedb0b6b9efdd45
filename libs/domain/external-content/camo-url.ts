import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CamoConfig } from '../../core/config';

/** The digest camo signs a URL with: HMAC-SHA1 of the URL under CAMO_KEY, in hex. */
function digestOf(key: string, url: string): string {
  return createHmac('sha1', key).update(url, 'utf8').digest('hex');
}

/**
 * Zulip's generate_camo_url: `<CAMO_URI><digest>/<url as hex>`, the form go-camo and
 * `GET /external_content/...` read.
 */
export function camoUrl(camo: Pick<CamoConfig, 'uri' | 'key'>, url: string): string {
  return `${camo.uri}${digestOf(camo.key, url)}/${Buffer.from(url, 'utf8').toString('hex')}`;
}

/**
 * The http(s) URL a camo path names, when its digest is the one CAMO_KEY (or a key of
 * CAMO_KEY_PREVIOUS, during a rotation) gives it; null for a forged, altered or malformed path.
 */
export function camoTarget(
  camo: Pick<CamoConfig, 'key' | 'previousKeys'>,
  digest: string,
  hexUrl: string,
): URL | null {
  if (!/^[0-9a-f]{40}$/i.test(digest) || !/^(?:[0-9a-f]{2})+$/i.test(hexUrl)) return null;
  const url = Buffer.from(hexUrl, 'hex').toString('utf8');
  const given = Buffer.from(digest, 'hex');
  const signed = [camo.key, ...camo.previousKeys].some((key) =>
    timingSafeEqual(Buffer.from(digestOf(key, url), 'hex'), given),
  );
  if (!signed) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed : null;
  } catch {
    return null;
  }
}
