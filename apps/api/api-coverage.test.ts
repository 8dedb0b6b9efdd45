import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Router } from 'express';
import yaml from 'js-yaml';
import { loadConfig } from '../../libs/config/load-config';
import type { AppContext } from '../../libs/core/context';
import type { EventsTier } from '../../libs/events/events-tier';
import { eventRoutes } from '../events/routes';
import { apiRouter } from './routes';

/**
 * Keeps docs/api-coverage.md current: every endpoint of the OpenAPI reference and every route we
 * serve has a row, and a row says "done" or "partial" exactly when the route is registered.
 */
type Endpoint = `${string} ${string}`;

interface RouteLayer {
  route?: { path: string; methods: Record<string, boolean> };
}

/** `/users/{user_id}` and `/users/:email` are the same route; compare with anonymous placeholders. */
const shape = (method: string, p: string): Endpoint =>
  `${method.toUpperCase()} ${p.replace(/\{[^}]+\}|[:*][A-Za-z_]+/g, '{}')}`;

function servedEndpoints(): Set<Endpoint> {
  // Registering routes reads only the configuration; the handlers never run here.
  const ctx = { config: loadConfig({ NODE_ENV: 'test' }) } as AppContext;
  const events = Router();
  eventRoutes(events, ctx, {} as EventsTier);
  const served = new Set<Endpoint>();
  for (const router of [apiRouter(ctx), events]) {
    for (const layer of router.stack as RouteLayer[]) {
      if (!layer.route) continue;
      for (const method of Object.keys(layer.route.methods)) {
        served.add(shape(method, layer.route.path));
      }
    }
  }
  return served;
}

function referenceEndpoints(): Set<Endpoint> {
  const doc = yaml.load(
    readFileSync(path.join(__dirname, '../../test/fixtures/zulip-openapi-fl247.yaml'), 'utf8'),
  ) as { paths: Record<string, Record<string, unknown>> };
  const methods = new Set(['get', 'post', 'patch', 'put', 'delete']);
  const endpoints = new Set<Endpoint>();
  for (const [p, ops] of Object.entries(doc.paths)) {
    for (const method of Object.keys(ops)) if (methods.has(method)) endpoints.add(shape(method, p));
  }
  return endpoints;
}

interface Row {
  /** As written: `GET /users/{email}` and `GET /users/{user_id}` are separate rows of one route. */
  written: string;
  endpoint: Endpoint;
  status: string;
}

function documentedRows(): Row[] {
  const text = readFileSync(path.join(__dirname, '../../docs/api-coverage.md'), 'utf8');
  const rows: Row[] = [];
  for (const line of text.split('\n')) {
    const cells = /^\|\s*`([^`]+)`\s*\|\s*([A-Z]+)\s*\|(.*)\|\s*$/.exec(line);
    if (cells) {
      rows.push({
        written: `${cells[2]} ${cells[1]}`,
        endpoint: shape(cells[2], cells[1]),
        status: cells[3].trim(),
      });
    }
  }
  return rows;
}

const implemented = (status: string) => /^(done|partial)\b/.test(status);
const unimplemented = (status: string) => /^(not yet|not planned)\b/.test(status);

describe('docs/api-coverage.md', () => {
  const rows = documentedRows();
  const byEndpoint = new Map(rows.map((row) => [row.endpoint, row.status]));
  const served = servedEndpoints();

  test('has one row per endpoint', () => {
    const seen = new Set<string>();
    const repeated = rows.filter((row) => seen.size === seen.add(row.written).size);
    expect(repeated.map((row) => row.written)).toEqual([]);
    expect(rows.length).toBeGreaterThan(100);
  });

  test('lists every endpoint of the OpenAPI reference and every route served', () => {
    const missing = [...referenceEndpoints(), ...served].filter((e) => !byEndpoint.has(e));
    expect([...new Set(missing)].sort()).toEqual([]);
  });

  test('says done or partial exactly for the routes served', () => {
    const wrong = rows
      .filter((row) => !row.status.startsWith('see '))
      .filter((row) =>
        served.has(row.endpoint) ? !implemented(row.status) : !unimplemented(row.status),
      )
      .map((row) => `${row.endpoint}: ${row.status.slice(0, 40)}`);
    expect(wrong).toEqual([]);
  });

  test('explains every partial and not-planned row', () => {
    const bare = rows.filter((row) => /^(partial|not planned)\s*$/.test(row.status));
    expect(bare.map((row) => row.endpoint)).toEqual([]);
  });
});
