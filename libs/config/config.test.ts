import { ConfigError, loadConfig } from './load-config';

describe('listening port', () => {
  it('is API_PORT, else PORT, else 9991', () => {
    expect(loadConfig({}).apiPort).toBe(9991);
    expect(loadConfig({ PORT: '8000' }).apiPort).toBe(8000);
    expect(loadConfig({ PORT: '8000', API_PORT: '9000' }).apiPort).toBe(9000);
  });

  it('refuses a PORT that is not a port', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
  });
});

describe('FAKE_EMAIL_DOMAIN', () => {
  it('defaults to a reserved name and refuses what cannot end an email address', () => {
    expect(loadConfig({}).fakeEmailDomain).toBe('chat.invalid');
    expect(loadConfig({ FAKE_EMAIL_DOMAIN: 'Bots.Example.org' }).fakeEmailDomain).toBe(
      'bots.example.org',
    );
    expect(() => loadConfig({ FAKE_EMAIL_DOMAIN: '127.0.0.1' })).toThrow(ConfigError);
  });
});

describe('Redis Cluster', () => {
  it('is off by default: one Redis at REDIS_URL', () => {
    expect(loadConfig({}).redisCluster).toBeNull();
  });

  it('takes its seed nodes from REDIS_CLUSTER_NODES', () => {
    expect(
      loadConfig({ REDIS_CLUSTER_NODES: '127.0.0.1:17000, [::1]:17001' }).redisCluster,
    ).toEqual({
      nodes: [
        { host: '127.0.0.1', port: 17000 },
        { host: '::1', port: 17001 },
      ],
    });
  });

  it('or from a redis+cluster:// REDIS_URL, with credentials', () => {
    expect(
      loadConfig({ REDIS_URL: 'redis+cluster://app:s%40cret@r1.internal:7000,r2.internal:7001' })
        .redisCluster,
    ).toEqual({
      nodes: [
        { host: 'r1.internal', port: 7000 },
        { host: 'r2.internal', port: 7001 },
      ],
      username: 'app',
      password: 's@cret',
    });
  });

  it('refuses nodes that are not host:port, and a prefix with braces', () => {
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: '127.0.0.1' })).toThrow(ConfigError);
    expect(() => loadConfig({ REDIS_URL: 'redis+cluster://r1:99999' })).toThrow(ConfigError);
    expect(() => loadConfig({ REDIS_PREFIX: '{chat}:' })).toThrow(ConfigError);
  });
});

describe('DATABASE_PREPARED_STATEMENTS', () => {
  it('is on unless set off, and only a boolean', () => {
    expect(loadConfig({}).databasePreparedStatements).toBe(true);
    expect(loadConfig({ DATABASE_PREPARED_STATEMENTS: 'false' }).databasePreparedStatements).toBe(
      false,
    );
    expect(() => loadConfig({ DATABASE_PREPARED_STATEMENTS: 'sometimes' })).toThrow(ConfigError);
  });
});

describe('DATABASE_POOL_SIZE', () => {
  it('is 10 connections per process unless set, and at least 1', () => {
    expect(loadConfig({}).databasePoolSize).toBe(10);
    expect(loadConfig({ DATABASE_POOL_SIZE: '4' }).databasePoolSize).toBe(4);
    expect(() => loadConfig({ DATABASE_POOL_SIZE: '0' })).toThrow(ConfigError);
  });
});
describe('DATABASE_IDLE_SECONDS', () => {
  it('keeps idle connections 300 s unless set, and at least 1 s', () => {
    expect(loadConfig({}).databaseIdleSeconds).toBe(300);
    expect(loadConfig({ DATABASE_IDLE_SECONDS: '30' }).databaseIdleSeconds).toBe(30);
    expect(() => loadConfig({ DATABASE_IDLE_SECONDS: '0' })).toThrow(ConfigError);
  });
});

describe('PASSWORD_MIN_LENGTH and PASSWORD_MIN_GUESSES', () => {
  it("are Zulip's 6 and 10000 unless set, and never negative", () => {
    expect(loadConfig({})).toMatchObject({ passwordMinLength: 6, passwordMinGuesses: 10000 });
    expect(loadConfig({ PASSWORD_MIN_LENGTH: '0', PASSWORD_MIN_GUESSES: '0' })).toMatchObject({
      passwordMinLength: 0,
      passwordMinGuesses: 0,
    });
    expect(() => loadConfig({ PASSWORD_MIN_LENGTH: '-1' })).toThrow(ConfigError);
    expect(() => loadConfig({ PASSWORD_MIN_GUESSES: 'many' })).toThrow(ConfigError);
  });
});

describe('CAMO_URI', () => {
  it('is off unless set; the URI ends in a slash and the key comes from SECRET_KEY if unset', () => {
    expect(loadConfig({}).camo).toBeNull();
    const camo = loadConfig({ CAMO_URI: '/external_content', SECRET_KEY: 'x'.repeat(16) }).camo;
    expect(camo).toMatchObject({
      uri: '/external_content/',
      maxBytes: 25 * 1024 * 1024,
      timeoutMs: 10_000,
    });
    expect(camo?.key).toMatch(/^[0-9a-f]{64}$/);
    expect(camo?.key).not.toBe(
      loadConfig({ CAMO_URI: '/external_content/', SECRET_KEY: 'y'.repeat(16) }).camo?.key,
    );
    expect(
      loadConfig({ CAMO_URI: 'https://camo.example/', CAMO_KEY: 'k'.repeat(16) }).camo?.key,
    ).toBe('k'.repeat(16));
    expect(() => loadConfig({ CAMO_URI: '/x/', CAMO_KEY: 'short' })).toThrow(ConfigError);
  });

  it('takes CAMO_KEY_PREVIOUS as a comma-separated list of keys of 16 characters or more', () => {
    const env = { CAMO_URI: '/x/', CAMO_KEY: 'n'.repeat(16) };
    expect(loadConfig(env).camo?.previousKeys).toEqual([]);
    const keys = loadConfig({ ...env, CAMO_KEY_PREVIOUS: `${'a'.repeat(16)}, ${'b'.repeat(20)},` })
      .camo?.previousKeys;
    expect(keys).toEqual(['a'.repeat(16), 'b'.repeat(20)]);
    expect(() => loadConfig({ ...env, CAMO_KEY_PREVIOUS: 'short' })).toThrow(ConfigError);
  });
});

describe('push notification bouncer', () => {
  const registration = {
    PUSH_NOTIFICATION_BOUNCER_URL: 'https://push.zulipchat.com/',
    ZULIP_ORG_ID: '4e8e3a8c-6d2b-4f41-9a4e-2f5b8c1d7e90',
    ZULIP_ORG_KEY: 'k'.repeat(64),
  };

  it('is off without configuration, and on with all three settings', () => {
    expect(loadConfig({}).pushBouncer).toBeNull();
    expect(loadConfig(registration).pushBouncer).toEqual({
      url: 'https://push.zulipchat.com',
      orgId: registration.ZULIP_ORG_ID,
      orgKey: registration.ZULIP_ORG_KEY,
    });
  });

  it('refuses a partial registration, an org id that is not a UUID, a URL that is not http(s)', () => {
    expect(() =>
      loadConfig({ PUSH_NOTIFICATION_BOUNCER_URL: registration.PUSH_NOTIFICATION_BOUNCER_URL }),
    ).toThrow(ConfigError);
    expect(() => loadConfig({ ...registration, ZULIP_ORG_ID: 'not-a-uuid' })).toThrow(ConfigError);
    expect(() =>
      loadConfig({ ...registration, PUSH_NOTIFICATION_BOUNCER_URL: 'ftp://push.example' }),
    ).toThrow(ConfigError);
  });
});

describe('SECRET_KEY in production', () => {
  const production = (secretKey: string) => () =>
    loadConfig({ NODE_ENV: 'production', SECRET_KEY: secretKey });

  it("refuses the example files' placeholders and short keys, naming the fix", () => {
    expect(production('REPLACE-with-openssl-rand-base64-48')).toThrow(
      '"SECRET_KEY" is a placeholder: set a random one (openssl rand -base64 48)',
    );
    expect(production('development-secret-key-not-for-production')).toThrow('placeholder');
    expect(production('k3Jd9sLq0aP2mZx7')).toThrow(
      '"SECRET_KEY" must be at least 32 characters in production',
    );
  });

  it('accepts a random key of 32 characters or more', () => {
    const key = 'vY2pL9qR4sT7uW1xZ3aB5cD8eF0gH6jK';
    expect(production(key)().secretKey).toBe(key);
  });
});
