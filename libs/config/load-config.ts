import Joi from 'joi';
import { isIP } from 'node:net';
import { createHmac } from 'node:crypto';
import type { Config, OidcIdpConfig, RedisClusterConfig, ReplicaSlot } from '../core/config';
import { directoryAuthSchema, parseDirectoryAuth } from './directory-auth-settings';
import { idpEntries, idpSchema, type IdpEntry } from './idp-map';

const commaList = (value: string): string[] =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

const CLUSTER_SCHEME = 'redis+cluster://';

/** `host:port,host:port`, as REDIS_CLUSTER_NODES and a `redis+cluster://` URL's host part list them. */
function parseNodes(value: string): RedisClusterConfig['nodes'] {
  const nodes = commaList(value).map((node) => {
    const [, host, port] = /^(\[[0-9a-fA-F:]+\]|[^:\s[\]]+):([0-9]{1,5})$/.exec(node) ?? [];
    if (host === undefined || Number(port) < 1 || Number(port) > 65535) {
      throw new Error(`"${node}" is not host:port`);
    }
    return { host: host.replace(/^\[|\]$/g, ''), port: Number(port) };
  });
  if (nodes.length === 0) throw new Error('names no node');
  return nodes;
}

/** `redis+cluster://[user:password@]host:port,host:port[/]`. */
function parseClusterUrl(url: string): RedisClusterConfig {
  const rest = url.slice(CLUSTER_SCHEME.length).replace(/\/$/, '');
  const at = rest.lastIndexOf('@');
  const auth = at >= 0 ? rest.slice(0, at) : '';
  const [username, password] = auth.includes(':') ? auth.split(/:(.*)/s) : ['', auth];
  return {
    nodes: parseNodes(rest.slice(at + 1)),
    ...(username ? { username: decodeURIComponent(username) } : {}),
    ...(password ? { password: decodeURIComponent(password) } : {}),
  };
}

function isCidr(value: string): boolean {
  const [address = '', prefix, extra] = value.split('/');
  const family = isIP(address);
  if (!family || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

function checkHostOrCidr(value: string): string {
  const host = value.toLowerCase();
  if (
    isCidr(host) ||
    /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(host)
  ) {
    return host;
  }
  throw new Error(`"${value}" is neither a host name nor an IP address or CIDR`);
}

// Express's names for address ranges, beside addresses and CIDRs.
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function checkProxy(value: string): string {
  if (PROXY_NAMES.has(value) || isCidr(value)) return value;
  throw new Error(
    `"${value}" is not an IP address, a CIDR or one of ${[...PROXY_NAMES].join(', ')}`,
  );
}

const envSchema = Joi.object({
  NODE_ENV: Joi.string().valid('production', 'development', 'test').default('development'),
  DATABASE_URL: Joi.string()
    .uri({ scheme: ['postgres', 'postgresql'] })
    .default('postgresql://postgres@127.0.0.1:5432/chat'),
  // LISTEN needs a session of its own: through a transaction-mode pooler it hears nothing.
  DATABASE_LISTEN_URL: Joi.string()
    .uri({ scheme: ['postgres', 'postgresql'] })
    .allow(''),
  DATABASE_POOL_SIZE: Joi.number().integer().min(1).max(1000).default(10),
  DATABASE_IDLE_SECONDS: Joi.number().integer().min(1).max(86_400).default(300),
  DATABASE_PREPARED_STATEMENTS: Joi.boolean().default(true),
  DATABASE_REPLICA_URLS: Joi.string()
    .allow('')
    .default('')
    .custom((value: string) => {
      for (const url of commaList(value)) {
        if (!/^postgres(ql)?:\/\/[^/]/.test(url))
          throw new Error(`"${url}" is not a postgresql:// URL`);
      }
      return value;
    }),
  DATABASE_REPLICA_MAX_LAG_SECONDS: Joi.number().positive().default(5),
  DATABASE_REPLICA_TIMEOUT_MS: Joi.number().integer().min(1).default(1000),
  REDIS_URL: Joi.alternatives()
    .try(
      Joi.string().uri({ scheme: ['redis', 'rediss'] }),
      Joi.string()
        .pattern(/^redis\+cluster:\/\//)
        .custom((v: string) => (parseClusterUrl(v), v)),
    )
    .default('redis://127.0.0.1:6379/0'),
  REDIS_CLUSTER_NODES: Joi.string()
    .allow('')
    .default('')
    .custom((v: string) => (v === '' ? v : (parseNodes(v), v))),
  // Braces would become the hash tag of every key, putting them all in one cluster slot.
  REDIS_PREFIX: Joi.string()
    .pattern(/^[^{}]*$/)
    .message('"REDIS_PREFIX" must not contain { or }')
    .default('chat:'),
  API_PORT: Joi.number().port(),
  // Many hosting platforms tell a process its port in PORT.
  PORT: Joi.number().port(),
  EVENTS_PORT: Joi.number().port().default(9992),
  METRICS_PORT: Joi.number().port(),
  BIND_HOST: Joi.string().default('127.0.0.1'),
  EXTERNAL_HOST: Joi.string().default('localhost:9991'),
  EXTERNAL_SCHEME: Joi.string().valid('http', 'https').default('http'),
  FAKE_EMAIL_DOMAIN: Joi.string()
    .domain({ tlds: false, minDomainSegments: 2 })
    .default('chat.invalid'),
  LOG_LEVEL: Joi.string().valid('error', 'warn', 'info', 'http', 'debug').default('info'),
  LOG_FORMAT: Joi.string().valid('json', 'pretty').default('json'),
  SECRET_KEY: Joi.string()
    .min(16)
    .when('NODE_ENV', {
      is: 'production',
      // A key copied from an example file, or short enough to guess, protects no API key.
      then: Joi.string()
        .required()
        .min(32)
        .pattern(/replace|changeme|change-me|placeholder|example|not-for-production|secret-key/i, {
          invert: true,
        })
        .messages({
          'string.min':
            '"SECRET_KEY" must be at least 32 characters in production (openssl rand -base64 48)',
          'string.pattern.invert.base':
            '"SECRET_KEY" is a placeholder: set a random one (openssl rand -base64 48)',
        }),
      otherwise: Joi.optional().default('development-secret-key-not-for-production'),
    }),
  BCRYPT_ROUNDS: Joi.number().integer().min(4).max(15).default(10),
  UPLOADS_DIR: Joi.string().default('var/uploads'),
  S3_BUCKET: Joi.string().allow('').default(''),
  S3_ENDPOINT: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .allow('')
    .default(''),
  S3_REGION: Joi.string().default('us-east-1'),
  S3_ACCESS_KEY_ID: Joi.string().allow('').default(''),
  S3_SECRET_ACCESS_KEY: Joi.string()
    .allow('')
    .default('')
    .when('S3_ACCESS_KEY_ID', {
      is: Joi.string().min(1),
      then: Joi.string().min(1).required().messages({
        'any.required': '"S3_SECRET_ACCESS_KEY" is required with S3_ACCESS_KEY_ID',
        'string.empty': '"S3_SECRET_ACCESS_KEY" is required with S3_ACCESS_KEY_ID',
      }),
    }),
  S3_FORCE_PATH_STYLE: Joi.boolean().default(false),
  MAX_AVATAR_FILE_SIZE_MIB: Joi.number().integer().min(0).default(5),
  MAX_FILE_UPLOAD_SIZE_MIB: Joi.number().integer().min(0).default(25),
  UNCLAIMED_UPLOAD_RETENTION_DAYS: Joi.number().positive().default(21),
  ARCHIVED_DATA_VACUUMING_DELAY_DAYS: Joi.number().min(0).default(30),
  RETENTION_DUTY_CYCLE: Joi.number().greater(0).max(1).default(0.5),
  OUTBOX_RETENTION_SECONDS: Joi.number().integer().min(0).default(3600),
  SMTP_HOST: Joi.string().allow('').default(''),
  SMTP_PORT: Joi.number().port().default(25),
  SMTP_SECURE: Joi.boolean().default(false),
  SMTP_USER: Joi.string().allow('').default(''),
  SMTP_PASSWORD: Joi.string().allow('').default(''),
  EMAIL_FROM: Joi.string().default('noreply@localhost'),
  OUTGOING_WEBHOOK_TIMEOUT_SECONDS: Joi.number().positive().default(10),
  OUTGOING_WEBHOOK_ALLOWED_HOSTS: Joi.string()
    .allow('')
    .default('')
    .custom((v: string) => (commaList(v).forEach(checkHostOrCidr), v)),
  TRUSTED_PROXIES: Joi.string()
    .default('loopback')
    .custom((v: string) => (commaList(v).forEach(checkProxy), v)),
  INVITATION_LINK_VALIDITY_MINUTES: Joi.number().integer().positive().default(14400),
  INVITES_DEFAULT_REALM_DAILY_MAX: Joi.number().integer().positive().default(100),
  EVENT_QUEUE_IDLE_SECONDS: Joi.number().integer().positive().default(600),
  HEARTBEAT_SECONDS: Joi.number().positive().default(45),
  EVENT_QUEUES_PER_USER: Joi.number().integer().min(1).max(100000).default(100),
  HTTP_REQUEST_TIMEOUT_SECONDS: Joi.number().positive().max(3600).default(30),
  OVERLOAD_DB_WAITING_LIMIT: Joi.number().integer().min(0),
  OVERLOAD_EVENT_LOOP_LAG_MS: Joi.number().integer().min(1).default(500),
  OVERLOAD_ANSWER_TARGET_MS: Joi.number().integer().min(1).default(300),
  OVERLOAD_MAX_IN_FLIGHT: Joi.number().integer().min(4).max(100000).default(64),
  WEB_CONCURRENCY: Joi.number().integer().min(1).max(256),
  EVENTS_AUTH_CACHE_SECONDS: Joi.number().min(0).default(10),
  API_AUTH_CACHE_SECONDS: Joi.number().min(0).default(300),
  DISPATCH_PARTITIONS: Joi.number().integer().min(1).max(256).default(8),
  EVENTS_REPLICA: Joi.string()
    .allow('')
    .custom((v: string) => (v === '' ? v : (parseReplicaSlot(v), v))),
  WEB_PUBLIC_STREAMS_ENABLED: Joi.boolean().default(true),
  PUSH_NOTIFICATION_BOUNCER_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .allow(''),
  ZULIP_ORG_ID: Joi.string().guid().allow(''),
  ZULIP_ORG_KEY: Joi.string().min(1).allow(''),
  PASSWORD_AUTH_ENABLED: Joi.boolean().default(true),
  PASSWORD_MIN_LENGTH: Joi.number().integer().min(0).default(6),
  PASSWORD_MIN_GUESSES: Joi.number().min(0).default(10000),
  CAMO_URI: Joi.string()
    .allow('')
    .default('')
    .custom((v: string) => (v === '' || v.endsWith('/') ? v : `${v}/`)),
  CAMO_KEY: Joi.string().min(16),
  CAMO_KEY_PREVIOUS: Joi.string()
    .allow('')
    .default('')
    .custom((v: string) => {
      const keys = v
        .split(',')
        .map((k) => k.trim())
        .filter(Boolean);
      if (keys.some((k) => k.length < 16)) throw new Error('each key needs 16 characters or more');
      return keys.join(',');
    }),
  CAMO_MAX_SIZE_MIB: Joi.number().positive().default(25),
  CAMO_TIMEOUT_SECONDS: Joi.number().positive().default(10),
  INLINE_URL_EMBED_PREVIEW: Joi.boolean().default(true),
  URL_PREVIEW_TIMEOUT_SECONDS: Joi.number().positive().max(60).default(5),
  URL_PREVIEW_MAX_SIZE_KIB: Joi.number().integer().positive().max(10240).default(1024),
  URL_PREVIEW_CACHE_SECONDS: Joi.number().integer().min(0).default(86400),
  RATE_LIMIT_API_REQUESTS: Joi.number().integer().positive().default(200),
  RATE_LIMIT_API_WINDOW_SECONDS: Joi.number().integer().positive().default(60),
  RATE_LIMIT_AUTH_ATTEMPTS: Joi.number().integer().positive().default(10),
  RATE_LIMIT_AUTH_WINDOW_SECONDS: Joi.number().integer().positive().default(1800),
  RATE_LIMIT_PASSWORD_RESET_PER_HOUR: Joi.number().integer().positive().default(2),
  RATE_LIMIT_PASSWORD_RESET_PER_DAY: Joi.number().integer().positive().default(5),
  RATE_LIMIT_SENDS_EMAIL_BY_IP_PER_DAY: Joi.number().integer().positive().default(5),
  PASSWORD_RESET_TIMEOUT_SECONDS: Joi.number().integer().positive().default(86400),
  ...directoryAuthSchema,
  SOCIAL_AUTH_OIDC_ENABLED_IDPS: Joi.string()
    .allow('')
    .default('')
    .custom((v: string) => (parseOidcIdps(v), v)),
  SOCIAL_AUTH_GITHUB_KEY: Joi.string().allow('').default(''),
  SOCIAL_AUTH_GITHUB_SECRET: Joi.string().allow('').default(''),
  SOCIAL_AUTH_GITHUB_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('https://github.com'),
  SOCIAL_AUTH_GITHUB_API_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('https://api.github.com'),
  SOCIAL_AUTH_GITHUB_ORG_NAME: Joi.string().allow('').default(''),
  SOCIAL_AUTH_GITHUB_TEAM_ID: Joi.string().pattern(/^\d*$/).allow('').default(''),
  SOCIAL_AUTH_GITHUB_AUTO_SIGNUP: Joi.boolean().default(false),
  TWO_FACTOR_AUTHENTICATION_ENABLED: Joi.boolean().default(false),
})
  .unknown(true)
  // The bouncer is reached only with the server's registration: all three or none.
  .and('PUSH_NOTIFICATION_BOUNCER_URL', 'ZULIP_ORG_ID', 'ZULIP_ORG_KEY');

interface OidcIdpEntry extends IdpEntry {
  oidc_url: string;
  client_id: string;
  secret: string;
}

const oidcIdpSchema = idpSchema<OidcIdpEntry>({
  oidc_url: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .required(),
  client_id: Joi.string().required(),
  secret: Joi.string().allow('').default(''),
});

/** SOCIAL_AUTH_OIDC_ENABLED_IDPS: `{"<name>": {oidc_url, display_name, client_id, ...}}`. */
function parseOidcIdps(text: string): OidcIdpConfig[] {
  if (text.trim() === '') return [];
  return idpEntries('SOCIAL_AUTH_OIDC_ENABLED_IDPS', 'OIDC provider', text, oidcIdpSchema).map(
    ([common, value]) => ({
      ...common,
      oidcUrl: value.oidc_url.replace(/\/+$/, ''),
      clientId: value.client_id,
      secret: value.secret,
    }),
  );
}

export class ConfigError extends Error {}

/** Without CAMO_KEY the built-in proxy signs with a key of its own, derived from SECRET_KEY. */
function derivedCamoKey(secretKey: string): string {
  return createHmac('sha256', secretKey).update('camo').digest('hex');
}

/** `EVENTS_REPLICA`: `i/n`, this replica's home share of the dispatch partitions. */
function parseReplicaSlot(text: string): ReplicaSlot {
  const match = /^(\d+)\/(\d+)$/.exec(text);
  const [index, count] = match ? [Number(match[1]), Number(match[2])] : [NaN, NaN];
  if (!(count >= 1 && index >= 0 && index < count)) {
    throw new Error(`EVENTS_REPLICA must be i/n with 0 <= i < n, not "${text}"`);
  }
  return { index, count };
}

// eslint-disable-next-line max-lines-per-function -- a table: one Config field per variable
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const { value, error } = envSchema.validate(env, { abortEarly: false, convert: true });
  if (error) {
    throw new ConfigError(
      `Invalid environment:\n${error.details.map((d) => `  - ${d.message}`).join('\n')}`,
    );
  }
  let directoryAuth: ReturnType<typeof parseDirectoryAuth>;
  try {
    directoryAuth = parseDirectoryAuth(value, `${value.EXTERNAL_SCHEME}://${value.EXTERNAL_HOST}`);
  } catch (err) {
    throw new ConfigError(`Invalid environment:\n  - ${(err as Error).message}`);
  }
  return {
    env: value.NODE_ENV,
    databaseUrl: value.DATABASE_URL,
    databasePoolSize: value.DATABASE_POOL_SIZE,
    databaseListenUrl: value.DATABASE_LISTEN_URL || value.DATABASE_URL,
    databaseReplicaUrls: commaList(value.DATABASE_REPLICA_URLS),
    databaseReplicaMaxLagSeconds: value.DATABASE_REPLICA_MAX_LAG_SECONDS,
    databaseReplicaTimeoutMs: value.DATABASE_REPLICA_TIMEOUT_MS,
    databaseIdleSeconds: value.DATABASE_IDLE_SECONDS,
    databasePreparedStatements: value.DATABASE_PREPARED_STATEMENTS,
    redisUrl: value.REDIS_URL,
    redisCluster: value.REDIS_CLUSTER_NODES
      ? { nodes: parseNodes(value.REDIS_CLUSTER_NODES) }
      : value.REDIS_URL.startsWith(CLUSTER_SCHEME)
        ? parseClusterUrl(value.REDIS_URL)
        : null,
    redisPrefix: value.REDIS_PREFIX,
    apiPort: value.API_PORT ?? value.PORT ?? 9991,
    eventsPort: value.EVENTS_PORT,
    metricsPort: value.METRICS_PORT ?? null,
    bindHost: value.BIND_HOST,
    externalHost: value.EXTERNAL_HOST.toLowerCase(),
    externalScheme: value.EXTERNAL_SCHEME,
    fakeEmailDomain: value.FAKE_EMAIL_DOMAIN.toLowerCase(),
    logLevel: value.LOG_LEVEL,
    logFormat: value.LOG_FORMAT,
    secretKey: value.SECRET_KEY,
    bcryptRounds: value.BCRYPT_ROUNDS,
    uploadsDir: value.UPLOADS_DIR,
    s3: value.S3_BUCKET
      ? {
          bucket: value.S3_BUCKET,
          endpoint: value.S3_ENDPOINT || null,
          region: value.S3_REGION,
          accessKeyId: value.S3_ACCESS_KEY_ID || null,
          secretAccessKey: value.S3_SECRET_ACCESS_KEY || null,
          forcePathStyle: value.S3_FORCE_PATH_STYLE,
        }
      : null,
    maxAvatarFileSizeMib: value.MAX_AVATAR_FILE_SIZE_MIB,
    maxFileUploadSizeMib: value.MAX_FILE_UPLOAD_SIZE_MIB,
    unclaimedUploadRetentionDays: value.UNCLAIMED_UPLOAD_RETENTION_DAYS,
    archivedDataVacuumingDelayDays: value.ARCHIVED_DATA_VACUUMING_DELAY_DAYS,
    retentionDutyCycle: value.RETENTION_DUTY_CYCLE,
    outboxRetentionSeconds: value.OUTBOX_RETENTION_SECONDS,
    smtp: value.SMTP_HOST
      ? {
          host: value.SMTP_HOST,
          port: value.SMTP_PORT,
          secure: value.SMTP_SECURE,
          user: value.SMTP_USER,
          password: value.SMTP_PASSWORD,
        }
      : null,
    emailFrom: value.EMAIL_FROM,
    outgoingWebhookTimeoutSeconds: value.OUTGOING_WEBHOOK_TIMEOUT_SECONDS,
    outgoingWebhookAllowedHosts: commaList(value.OUTGOING_WEBHOOK_ALLOWED_HOSTS).map(
      checkHostOrCidr,
    ),
    trustedProxies: commaList(value.TRUSTED_PROXIES),
    inviteExpiryMinutes: value.INVITATION_LINK_VALIDITY_MINUTES,
    invitesDefaultRealmDailyMax: value.INVITES_DEFAULT_REALM_DAILY_MAX,
    eventQueueIdleSeconds: value.EVENT_QUEUE_IDLE_SECONDS,
    heartbeatSeconds: value.HEARTBEAT_SECONDS,
    eventQueuesPerUser: value.EVENT_QUEUES_PER_USER,
    httpRequestTimeoutSeconds: value.HTTP_REQUEST_TIMEOUT_SECONDS,
    overload: {
      // As many waiting as there are connections: each then waits about one query's time.
      dbWaitingLimit: value.OVERLOAD_DB_WAITING_LIMIT ?? value.DATABASE_POOL_SIZE,
      eventLoopLagMs: value.OVERLOAD_EVENT_LOOP_LAG_MS,
      answerTargetMs: value.OVERLOAD_ANSWER_TARGET_MS,
      maxInFlight: value.OVERLOAD_MAX_IN_FLIGHT,
    },
    webConcurrency: value.WEB_CONCURRENCY ?? null,
    dispatchPartitions: value.DISPATCH_PARTITIONS,
    eventsReplica: value.EVENTS_REPLICA ? parseReplicaSlot(value.EVENTS_REPLICA) : null,
    eventsAuthCacheSeconds: value.EVENTS_AUTH_CACHE_SECONDS,
    apiAuthCacheSeconds: value.API_AUTH_CACHE_SECONDS,
    webPublicStreamsEnabled: value.WEB_PUBLIC_STREAMS_ENABLED,
    pushBouncer:
      value.PUSH_NOTIFICATION_BOUNCER_URL && value.ZULIP_ORG_ID && value.ZULIP_ORG_KEY
        ? {
            url: value.PUSH_NOTIFICATION_BOUNCER_URL.replace(/\/+$/, ''),
            orgId: value.ZULIP_ORG_ID,
            orgKey: value.ZULIP_ORG_KEY,
          }
        : null,
    passwordAuthEnabled: value.PASSWORD_AUTH_ENABLED,
    passwordMinLength: value.PASSWORD_MIN_LENGTH,
    passwordMinGuesses: value.PASSWORD_MIN_GUESSES,
    camo: value.CAMO_URI
      ? {
          uri: value.CAMO_URI,
          key: value.CAMO_KEY ?? derivedCamoKey(value.SECRET_KEY),
          previousKeys: value.CAMO_KEY_PREVIOUS ? value.CAMO_KEY_PREVIOUS.split(',') : [],
          maxBytes: Math.floor(value.CAMO_MAX_SIZE_MIB * 1024 * 1024),
          timeoutMs: value.CAMO_TIMEOUT_SECONDS * 1000,
        }
      : null,
    urlPreview: {
      enabled: value.INLINE_URL_EMBED_PREVIEW,
      timeoutMs: value.URL_PREVIEW_TIMEOUT_SECONDS * 1000,
      maxBytes: value.URL_PREVIEW_MAX_SIZE_KIB * 1024,
      cacheSeconds: value.URL_PREVIEW_CACHE_SECONDS,
    },
    rateLimit: {
      apiRequests: value.RATE_LIMIT_API_REQUESTS,
      apiWindowSeconds: value.RATE_LIMIT_API_WINDOW_SECONDS,
      authAttempts: value.RATE_LIMIT_AUTH_ATTEMPTS,
      authWindowSeconds: value.RATE_LIMIT_AUTH_WINDOW_SECONDS,
      passwordResetPerHour: value.RATE_LIMIT_PASSWORD_RESET_PER_HOUR,
      passwordResetPerDay: value.RATE_LIMIT_PASSWORD_RESET_PER_DAY,
      sendsEmailByIpPerDay: value.RATE_LIMIT_SENDS_EMAIL_BY_IP_PER_DAY,
    },
    passwordResetTimeoutSeconds: value.PASSWORD_RESET_TIMEOUT_SECONDS,
    ...directoryAuth,
    oidcIdps: parseOidcIdps(value.SOCIAL_AUTH_OIDC_ENABLED_IDPS),
    github:
      value.SOCIAL_AUTH_GITHUB_KEY && value.SOCIAL_AUTH_GITHUB_SECRET
        ? {
            key: value.SOCIAL_AUTH_GITHUB_KEY,
            secret: value.SOCIAL_AUTH_GITHUB_SECRET,
            url: String(value.SOCIAL_AUTH_GITHUB_URL).replace(/\/+$/, ''),
            apiUrl: String(value.SOCIAL_AUTH_GITHUB_API_URL).replace(/\/+$/, ''),
            orgName: value.SOCIAL_AUTH_GITHUB_ORG_NAME || null,
            teamId: value.SOCIAL_AUTH_GITHUB_TEAM_ID || null,
            autoSignup: value.SOCIAL_AUTH_GITHUB_AUTO_SIGNUP,
          }
        : null,
    twoFactorEnabled: value.TWO_FACTOR_AUTHENTICATION_ENABLED,
  };
}
