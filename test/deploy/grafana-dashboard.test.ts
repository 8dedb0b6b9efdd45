import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startTestContext, type TestContext } from '../harness';
import { freePort } from '../free-port';
import { startTier, type Tier } from '../multiprocess/processes';

/**
 * Issue 46: deploy/grafana/chat-server.json charts what the server exports. The server runs as
 * `npm start` runs it (every tier in one process), and every query of the dashboard must name
 * metrics its /metrics scrape really shows.
 */
const ROOT = path.resolve(__dirname, '../..');

interface Target {
  expr: string;
}
interface Panel {
  type: string;
  title: string;
  targets?: Target[];
  panels?: Panel[];
}

const dashboard = JSON.parse(
  readFileSync(path.join(ROOT, 'deploy/grafana/chat-server.json'), 'utf8'),
) as {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: { definition?: string }[] };
};

const panels = (list: Panel[]): Panel[] => list.flatMap((p) => [p, ...panels(p.panels ?? [])]);

/** The metric names a PromQL query reads, histogram series by the histogram's name. */
const metricsOf = (expr: string): string[] =>
  [...expr.matchAll(/\b((?:chat|nodejs|process)_[a-z0-9_]+)/g)].map((m) =>
    m[1].replace(/_(bucket|count|sum)$/, ''),
  );

let t: TestContext;
let server: Tier;
let scraped: Set<string>;

beforeAll(async () => {
  t = await startTestContext();
  const metricsPort = await freePort();
  server = await startTier('all', t.config, { METRICS_PORT: String(metricsPort) });
  // A request of the API and a long-poll, so their series exist as well as their names.
  await fetch(`${server.url}/api/v1/server_settings`, { headers: { host: t.config.externalHost } });
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  scraped = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
}, 90000);
afterAll(async () => {
  await server?.stop();
  await t.close();
});

it('is a Grafana dashboard whose every query names metrics the server exports', () => {
  expect(dashboard).toMatchObject({ uid: 'chat-server', title: 'Chat server' });
  const queries = panels(dashboard.panels).flatMap((p) =>
    (p.targets ?? []).map((target) => ({ panel: p.title, expr: target.expr })),
  );
  expect(queries.length).toBeGreaterThanOrEqual(15);
  const variables = dashboard.templating.list.flatMap((v) => (v.definition ? [v.definition] : []));
  for (const { panel, expr } of [
    ...queries,
    ...variables.map((expr) => ({ panel: 'variable', expr })),
  ]) {
    const names = metricsOf(expr);
    expect({ panel, expr, names: names.length > 0 }).toEqual({ panel, expr, names: true });
    for (const name of names) {
      expect({ panel, name, exported: scraped.has(name) }).toEqual({ panel, name, exported: true });
    }
  }
});

it('charts what operators watch: requests, polls, delivery, queues, refusals, the loop, the stores', () => {
  const used = new Set(
    panels(dashboard.panels).flatMap((p) => (p.targets ?? []).flatMap((q) => metricsOf(q.expr))),
  );
  for (const name of [
    'chat_http_request_duration_seconds',
    'chat_events_polls_waiting',
    'chat_dispatch_latency_seconds',
    'chat_dispatch_lag_entries',
    'chat_outbox_backlog',
    'chat_jobs',
    'chat_overload_refusals_total',
    'chat_event_loop_lag_seconds',
    'chat_store_up',
  ]) {
    expect({ name, charted: used.has(name) }).toEqual({ name, charted: true });
  }
});
