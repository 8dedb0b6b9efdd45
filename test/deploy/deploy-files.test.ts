import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { load, loadAll } from 'js-yaml';
import { renderNginxConfig } from '../../deploy/local/nginx-config';
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
  // Ours: compose's migrate, api, events, worker and Kubernetes' three tiers (not redis-server).
  const ours = commands.filter((c) => !c[0].startsWith('redis'));
  expect(ours).toHaveLength(7);
  for (const command of ours) {
    expect(command[0]).toBe('node');
    const at = command.findIndex((part) => part.endsWith('.js'));
    const entry = command[at];
    expect(builtFromSource(entry)).toBe(true);
    // The events tier starts with its own flags, the same everywhere it is started.
    const flags = command.slice(1, at);
    expect(flags).toEqual(entry === 'dist/apps/events/main.js' ? EVENTS_NODE_FLAGS : []);
  }
  expect(new Set(probes)).toEqual(new Set(['readinessProbe:/readyz', 'livenessProbe:/healthz']));
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
  });
  expect(code(read('deploy/nginx/compose.conf'))).toBe(code(rendered));
});
