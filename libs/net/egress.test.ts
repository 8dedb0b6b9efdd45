import type { LookupFunction } from 'node:net';
import { loadConfig } from '../config/load-config';
import { startHttpReceiver, type HttpReceiver } from '../../test/worker-factories';
import { addressPolicy } from './address-policy';
import { egressRequest, MAX_RESPONSE_BYTES, type EgressRequest } from './egress';

/**
 * Issue 11: outgoing calls reach only the public internet unless the operator allows more.
 * Only loopback is ever connected to here; every other address is refused before connecting.
 */

let receiver: HttpReceiver;
let other: HttpReceiver;
let port: string;

beforeAll(async () => {
  receiver = await startHttpReceiver();
  other = await startHttpReceiver();
  port = new URL(receiver.url).port;
});
afterAll(async () => {
  await receiver.close();
  await other.close();
});
beforeEach(() => {
  receiver.requests.length = 0;
  other.requests.length = 0;
  receiver.reply = { status: 200, body: '{"ok": true}' };
});

/** A resolver that answers every name with these addresses (a hosts-file override). */
const resolvesTo =
  (...addresses: string[]): LookupFunction =>
  (_hostname, options, callback) => {
    const all = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    if (options.all) callback(null, all);
    else callback(null, all[0].address, all[0].family);
  };

const post = (url: string, allowed: string[] = [], extra: Partial<EgressRequest> = {}) =>
  egressRequest({
    url: new URL(url),
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: '{}',
    timeoutMs: 2000,
    policy: addressPolicy(allowed),
    ...extra,
  });

describe('the address policy', () => {
  const policy = addressPolicy([]);

  it.each([
    '127.0.0.1',
    '127.255.0.1',
    '0.0.0.0',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.254',
    '224.0.0.1',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
    '192.0.2.1',
    '198.18.0.1',
    '::',
    '::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'ff02::1',
    '2001:db8::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '::ffff:192.168.0.1',
    '64:ff9b::7f00:1',
    '::127.0.0.1',
  ])('denies %s', (address) => {
    expect(policy.allows('example.com', address)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '::ffff:8.8.8.8', '2606:4700::1111'])(
    'allows the public address %s',
    (address) => {
      expect(policy.allows('example.com', address)).toBe(true);
    },
  );

  it('reads OUTGOING_WEBHOOK_ALLOWED_HOSTS at boot, refusing what is neither a name nor a range', () => {
    const config = loadConfig({ OUTGOING_WEBHOOK_ALLOWED_HOSTS: 'Bots.Internal, 10.0.0.0/8,::1' });
    expect(config.outgoingWebhookAllowedHosts).toEqual(['bots.internal', '10.0.0.0/8', '::1']);
    expect(loadConfig({}).outgoingWebhookAllowedHosts).toEqual([]);
    for (const bad of ['bots internal', '10.0.0.0/33', 'http://bots.internal']) {
      expect(() => loadConfig({ OUTGOING_WEBHOOK_ALLOWED_HOSTS: bad })).toThrow(
        /OUTGOING_WEBHOOK_ALLOWED_HOSTS/,
      );
    }
  });

  it('opens exceptions by host name, address and CIDR', () => {
    const allowing = addressPolicy(['bots.internal', '10.0.0.0/8', '::1']);
    expect(allowing.allows('BOTS.internal', '192.168.9.9')).toBe(true);
    expect(allowing.allows('other.internal', '10.2.3.4')).toBe(true);
    expect(allowing.allows('other.internal', '::1')).toBe(true);
    expect(allowing.allows('other.internal', '192.168.9.9')).toBe(false);
    expect(allowing.allows('other.internal', '127.0.0.1')).toBe(false);
  });
});

describe('egressRequest', () => {
  it('refuses loopback literals, in every spelling, without connecting', async () => {
    for (const host of ['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '2130706433', '0x7f.1']) {
      expect(await post(`http://${host}:${port}/bot`)).toMatchObject({ kind: 'denied' });
    }
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses private and metadata literals before any connection is attempted', async () => {
    for (const host of ['169.254.169.254', '10.0.0.1', '[fd00::1]', '100.64.0.1']) {
      expect(await post(`http://${host}/latest/meta-data/`)).toEqual({
        kind: 'denied',
        address: host.replace(/[[\]]/g, ''),
      });
    }
  });

  it('refuses a name that resolves to loopback, checked when the socket connects', async () => {
    const outcome = await post(`http://bot.example.com:${port}/bot`, [], {
      lookup: resolvesTo('127.0.0.1'),
    });
    expect(outcome).toEqual({ kind: 'denied', address: '127.0.0.1' });
    expect(receiver.requests).toHaveLength(0);
    // The real resolver, too: localhost is loopback.
    expect(await post(`http://localhost:${port}/bot`)).toMatchObject({ kind: 'denied' });
    expect(receiver.requests).toHaveLength(0);
  });

  it('connects only to the allowed addresses of a name that resolves to several', async () => {
    const outcome = await post(`http://bot.example.com:${port}/bot`, ['127.0.0.1'], {
      lookup: resolvesTo('10.0.0.1', '127.0.0.1'),
    });
    expect(outcome).toMatchObject({ kind: 'response', status: 200 });
    expect(receiver.requests).toHaveLength(1);
  });

  it('reaches loopback when OUTGOING_WEBHOOK_ALLOWED_HOSTS names the host or its range', async () => {
    const byName = await post(`http://bots.test:${port}/bot`, ['bots.test'], {
      lookup: resolvesTo('127.0.0.1'),
    });
    expect(byName).toMatchObject({ kind: 'response', status: 200 });
    const byCidr = await post(receiver.url, ['127.0.0.0/8']);
    expect(byCidr.kind === 'response' && byCidr.body.toString()).toBe('{"ok": true}');
    expect(receiver.requests).toHaveLength(2);
  });

  it('never follows a redirect', async () => {
    receiver.reply = { status: 302, body: '' };
    const redirecting = await startHttpReceiverWithLocation(other.url);
    try {
      const outcome = await post(redirecting.url, ['127.0.0.1']);
      expect(outcome).toMatchObject({ kind: 'response', status: 302 });
      expect(other.requests).toHaveLength(0);
    } finally {
      await redirecting.close();
    }
  });

  it('stops reading at 1 MiB', async () => {
    receiver.reply = { status: 200, body: 'x'.repeat(MAX_RESPONSE_BYTES + 1) };
    expect(await post(receiver.url, ['127.0.0.1'])).toEqual({ kind: 'too-large' });
    receiver.reply = { status: 200, body: 'x'.repeat(MAX_RESPONSE_BYTES) };
    const exact = await post(receiver.url, ['127.0.0.1']);
    expect(exact.kind === 'response' && exact.body.length).toBe(MAX_RESPONSE_BYTES);
  });

  it('gives up at the configured timeout', async () => {
    receiver.reply = { status: 200, body: '{}', delayMs: 1500 };
    const started = Date.now();
    expect(await post(receiver.url, ['127.0.0.1'], { timeoutMs: 200 })).toEqual({
      kind: 'timeout',
    });
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

/** A loopback server answering every request with a redirect to `location`. */
async function startHttpReceiverWithLocation(location: string) {
  const { createServer } = await import('node:http');
  const server = createServer((_req, res) => {
    res.writeHead(302, { Location: location });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}/bot`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
