import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../libs/config/load-config';
import type { AppContext } from '../../libs/core/context';
import { createLogger } from '../../libs/log/create-logger';
import { createApiApp } from './app';

/** Issue 11: X-Forwarded-For is believed only from TRUSTED_PROXIES, so clients cannot pick req.ip. */

type TrustFn = (address: string, hop: number) => boolean;

function trustOf(env: Record<string, string>): TrustFn {
  // Building the app reads only the configuration; no handler runs here.
  const ctx = {
    config: loadConfig({ NODE_ENV: 'test', ...env }),
    log: createLogger({ level: 'error', format: 'json' }),
  } as AppContext;
  return createApiApp(ctx).get('trust proxy fn') as TrustFn;
}

describe('trust proxy', () => {
  it('trusts only loopback by default', () => {
    const trust = trustOf({});
    expect(trust('127.0.0.1', 0)).toBe(true);
    expect(trust('::1', 0)).toBe(true);
    for (const peer of ['203.0.113.7', '10.1.2.3', '192.168.0.9', 'fd00::1', '169.254.1.1']) {
      expect(trust(peer, 0)).toBe(false);
    }
  });

  it('follows TRUSTED_PROXIES', () => {
    const trust = trustOf({ TRUSTED_PROXIES: '10.0.0.0/8, 2001:db8::/32' });
    expect(trust('10.9.8.7', 0)).toBe(true);
    expect(trust('2001:db8::5', 0)).toBe(true);
    expect(trust('127.0.0.1', 0)).toBe(false);
    expect(trust('11.0.0.1', 0)).toBe(false);
  });

  it('refuses a setting that is not an address, a CIDR or a range name', () => {
    expect(() => loadConfig({ TRUSTED_PROXIES: 'true' })).toThrow(/TRUSTED_PROXIES/);
    expect(() => loadConfig({ TRUSTED_PROXIES: '10.0.0.0/33' })).toThrow(/TRUSTED_PROXIES/);
  });
});

describe('deploy/nginx/chat.conf', () => {
  const conf = readFileSync(path.join(__dirname, '../../deploy/nginx/chat.conf'), 'utf8');

  it('reaches the tiers from an address the default TRUSTED_PROXIES trusts', () => {
    const trust = trustOf({});
    const upstreams = [...conf.matchAll(/^\s*server\s+([0-9a-f.:[\]]+):\d+;/gm)].map((m) => m[1]);
    expect(upstreams.length).toBeGreaterThan(0);
    for (const host of upstreams) expect(trust(host.replace(/^\[|\]$/g, ''), 0)).toBe(true);
  });

  it('replaces what the client sent in X-Forwarded-For with the address it saw', () => {
    expect(conf).toMatch(/proxy_set_header X-Forwarded-For \$remote_addr;/);
    expect(conf).not.toMatch(/\$proxy_add_x_forwarded_for/);
  });
});
