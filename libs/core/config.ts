import type { LdapConfig, SamlConfig } from './directory-auth-config';

/** An events replica's place among n: it leads the dispatch partitions p with p % count == index. */
export interface ReplicaSlot {
  index: number;
  count: number;
}

/** Everything the processes read from the environment, validated once at boot. */
export interface Config {
  env: 'production' | 'development' | 'test';
  databaseUrl: string;
  /** Where the change feed and the job relay LISTEN: PostgreSQL itself, never a pooler. */
  databaseListenUrl: string;
  /** PostgreSQL connections each process may open (its pool's size). */
  databasePoolSize: number;
  /** Streaming replicas that reads tolerating lag may use (libs/db/read-replicas.ts). */
  databaseReplicaUrls: string[];
  /** A replica further behind the primary than this is skipped. */
  databaseReplicaMaxLagSeconds: number;
  /**
   * How long a read on a replica waits for a connection, then for each statement's answer, before
   * it runs again on the primary and the replica counts as down.
   */
  databaseReplicaTimeoutMs: number;
  /**
   * How long a pooled PostgreSQL connection may sit idle before it closes. Long: a new connection
   * costs its server process a fork and cold caches, and a pool that closed its connections after
   * pg's default 10 s reopened a dozen at once under the next burst (a one-second stall of
   * `npm start`, docs/benchmarks.md).
   */
  databaseIdleSeconds: number;
  /**
   * Whether hot queries may be named prepared statements, parsed and planned once per connection.
   * Off behind a pooler that cannot keep them (PgBouncer before 1.21 in transaction mode).
   */
  databasePreparedStatements: boolean;
  redisUrl: string;
  /**
   * Redis Cluster seed nodes (REDIS_CLUSTER_NODES, or a `redis+cluster://` REDIS_URL); null: one
   * Redis at `redisUrl`.
   */
  redisCluster: RedisClusterConfig | null;
  /** Prefix for every Redis key and BullMQ queue, so several deployments (or test files) can share one Redis. */
  redisPrefix: string;
  apiPort: number;
  eventsPort: number;
  /** Listener for `/metrics`, `/healthz` and `/readyz`, apart from the API; null: none. */
  metricsPort: number | null;
  bindHost: string;
  /** Host (and port) clients reach the server at; organizations other than the root one live at `<subdomain>.<externalHost>`. */
  externalHost: string;
  externalScheme: 'http' | 'https';
  /** Domain of bot and system-bot emails when the organization's host cannot end an email address (an IP address, no dot): Zulip's FAKE_EMAIL_DOMAIN. */
  fakeEmailDomain: string;
  logLevel: string;
  logFormat: 'json' | 'pretty';
  /** Encrypts API keys at rest; rotating it invalidates the stored copies (not the hashes). */
  secretKey: string;
  bcryptRounds: number;
  /** Local upload storage, and with S3 the spool where a file waits before it is sent there. */
  uploadsDir: string;
  /**
   * S3-compatible upload storage (S3_BUCKET set); null keeps uploads on local disk. Keys are
   * null to use the SDK's default credential chain (instance roles, AWS_* variables).
   */
  s3: {
    bucket: string;
    endpoint: string | null;
    region: string;
    accessKeyId: string | null;
    secretAccessKey: string | null;
    forcePathStyle: boolean;
  } | null;
  /** Largest avatar image `POST /users/me/avatar` accepts (Zulip's MAX_AVATAR_FILE_SIZE_MIB). */
  maxAvatarFileSizeMib: number;
  /** Largest file `POST /user_uploads` accepts (Zulip's MAX_FILE_UPLOAD_SIZE); register reports it. */
  maxFileUploadSizeMib: number;
  /** Uploads no message or scheduled message links are deleted after this many days (Zulip: 3 weeks). */
  unclaimedUploadRetentionDays: number;
  /** Messages the retention policy archived are purged for good this many days later (Zulip's setting of that name). */
  archivedDataVacuumingDelayDays: number;
  /** The share of its time the retention job spends archiving; it pauses the rest (RETENTION_DUTY_CYCLE). */
  retentionDutyCycle: number;
  /** Published outbox events and done job rows are deleted this long after (OUTBOX_RETENTION_SECONDS). */
  outboxRetentionSeconds: number;
  smtp: { host: string; port: number; secure: boolean; user: string; password: string } | null;
  emailFrom: string;
  outgoingWebhookTimeoutSeconds: number;
  /**
   * Exceptions to the egress policy (libs/net/egress): host names and IP addresses or CIDRs that
   * outgoing calls may reach although they are private, loopback or otherwise denied.
   */
  outgoingWebhookAllowedHosts: string[];
  /** Express `trust proxy` list: only these peers' X-Forwarded-For is believed. */
  trustedProxies: string[];
  inviteExpiryMinutes: number;
  /** Invitations an organization may send per 24 hours unless its `max_invites` says otherwise. */
  invitesDefaultRealmDailyMax: number;
  eventQueueIdleSeconds: number;
  heartbeatSeconds: number;
  /** Event queues one user may hold; registering one more evicts the user's longest-idle queue. */
  eventQueuesPerUser: number;
  /** A request's head and body must arrive within this time, or it is answered 408. */
  httpRequestTimeoutSeconds: number;
  /** Where a request is refused with 503 rather than left to wait without bound. */
  overload: {
    /** Requests waiting for a PostgreSQL connection, per pool, beyond which new ones are refused. */
    dbWaitingLimit: number;
    /** Event-loop delay (the recent maximum) beyond which new requests are refused. */
    eventLoopLagMs: number;
    /** Past this time for the fastest answers, the requests a process works on at once are cut. */
    answerTargetMs: number;
    /** The most requests a process works on at once, however fast it answers. */
    maxInFlight: number;
  };
  /** Processes `npm start` runs on its one port; null: one per available core. */
  webConcurrency: number | null;
  /**
   * This events replica's home share of the dispatch partitions (`EVENTS_REPLICA=i/n`), which it
   * leads whenever it is alive; null: an equal share of whatever the live replicas split.
   */
  eventsReplica: ReplicaSlot | null;
  /** How long the events tier trusts a credential it has checked (0: check every poll). */
  eventsAuthCacheSeconds: number;
  /**
   * How long the API tier keeps a checked credential (0: look it up on every request). An entry
   * is dropped at once when PostgreSQL reports a change to its user or organization.
   */
  apiAuthCacheSeconds: number;
  /**
   * Dispatch partitions: users are split over this many domain streams, each led by one events
   * replica. Every tier must agree on it; change it only with the event queues empty.
   */
  dispatchPartitions: number;
  webPublicStreamsEnabled: boolean;
  /**
   * The server's registration with a Zulip push notification bouncer (Zulip's
   * PUSH_NOTIFICATION_BOUNCER_URL, ZULIP_ORG_ID, ZULIP_ORG_KEY); null: no mobile push.
   */
  pushBouncer: PushBouncerConfig | null;
  passwordAuthEnabled: boolean;
  /** Zulip's PASSWORD_MIN_LENGTH: shorter new passwords are refused; register reports it. */
  passwordMinLength: number;
  /** Zulip's PASSWORD_MIN_GUESSES: zxcvbn's estimate a new password must reach; register reports it. */
  passwordMinGuesses: number;
  /**
   * Zulip's camo image proxy: external images and videos in messages load through
   * `<uri><digest>/<hex url>` (`GET /external_content/...` when `uri` is that path); null: off.
   */
  camo: CamoConfig | null;
  /** Previews of linked web pages (Zulip's embed_links worker): libs/domain/link-previews. */
  urlPreview: UrlPreviewConfig;
  /** Requests per window per authenticated user (Zulip's default: 200 a minute). */
  rateLimit: {
    apiRequests: number;
    apiWindowSeconds: number;
    authAttempts: number;
    authWindowSeconds: number;
    /** Zulip's password_reset_form_by_email: reset emails per address per hour and per day. */
    passwordResetPerHour: number;
    passwordResetPerDay: number;
    /** Zulip's sends_email_by_ip: requests that send an email, per client address per day. */
    sendsEmailByIpPerDay: number;
  };
  /** How long a password reset link stays valid (it is also used up by the reset itself). */
  passwordResetTimeoutSeconds: number;
  /** LDAP sign-in (AUTH_LDAP_SERVER_URI set); null: off. */
  ldap: LdapConfig | null;
  /** SAML sign-in (SOCIAL_AUTH_SAML_ENABLED_IDPS set); null: off. */
  saml: SamlConfig | null;
  /** OpenID Connect providers (Zulip's SOCIAL_AUTH_OIDC_ENABLED_IDPS), in the order configured. */
  oidcIdps: OidcIdpConfig[];
  /** "Log in with GitHub" (OAuth 2; SOCIAL_AUTH_GITHUB_KEY and _SECRET); null: off. */
  github: GithubConfig | null;
  /** Zulip's TWO_FACTOR_AUTHENTICATION_ENABLED: TOTP enrolment and the code at password sign-in. */
  twoFactorEnabled: boolean;
}

export interface GithubConfig {
  key: string;
  secret: string;
  /** Where the OAuth pages live: https://github.com, or a GitHub Enterprise server's URL. */
  url: string;
  /** The REST API: https://api.github.com, or `<enterprise>/api/v3`. */
  apiUrl: string;
  /** Zulip's SOCIAL_AUTH_GITHUB_ORG_NAME / _TEAM_ID: only members may sign in; null: anyone. */
  orgName: string | null;
  teamId: string | null;
  /** Whether a first sign-in with no account creates one (off by default, as for OIDC). */
  autoSignup: boolean;
}

export interface OidcIdpConfig {
  /** The key in SOCIAL_AUTH_OIDC_ENABLED_IDPS: names the provider in URLs and server_settings. */
  name: string;
  /** The issuer; its discovery document is `<oidc_url>/.well-known/openid-configuration`. */
  oidcUrl: string;
  displayName: string;
  displayIcon: string | null;
  clientId: string;
  secret: string;
  /** Whether a first sign-in with no account creates one (Zulip's auto_signup, default off). */
  autoSignup: boolean;
  /** Subdomains that may use it; null: every organization. */
  limitToSubdomains: string[] | null;
}

export interface UrlPreviewConfig {
  /** INLINE_URL_EMBED_PREVIEW: Zulip's server setting; organizations turn previews on too. */
  enabled: boolean;
  /** Deadline of one page's fetch, redirects included. */
  timeoutMs: number;
  /** Largest page read; a bigger one gets no preview. */
  maxBytes: number;
  /** How long a page's preview (or that it has none) is kept in Redis. */
  cacheSeconds: number;
}

export interface CamoConfig {
  /** CAMO_URI: the proxy's URL prefix, ending in `/` (`/external_content/` is served here). */
  uri: string;
  /** CAMO_KEY: the HMAC-SHA1 key the digests are made with (shared with an external go-camo). */
  key: string;
  /**
   * CAMO_KEY_PREVIOUS: keys still accepted for links signed before a rotation (messages keep the
   * links they were rendered with); new links are signed with `key` alone.
   */
  previousKeys: string[];
  /** Largest remote body the proxy passes on, and its deadline for the whole exchange. */
  maxBytes: number;
  timeoutMs: number;
}

export interface PushBouncerConfig {
  /** Base URL, e.g. https://push.zulipchat.com; the API lives under /api/v1/remotes/. */
  url: string;
  orgId: string;
  orgKey: string;
}

export interface RedisClusterConfig {
  nodes: { host: string; port: number }[];
  username?: string;
  password?: string;
}
