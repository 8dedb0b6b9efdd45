import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { type Organization, organization } from '../../../test/organization';

/**
 * Issue 28: Zulip's camo proxy. With CAMO_URI set, external images and videos in messages load
 * through `/external_content/<digest>/<hex url>`, which fetches only URLs the server signed,
 * through the egress policy, within a size limit and a deadline.
 */
const KEY = 'camo-test-key-0123456789';
const MAX_BYTES = Math.floor(0.01 * 1024 * 1024);
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(2000, 7)]);
const VIDEO = Buffer.alloc(5000, 3);

/** The remote host: what it serves, and the headers each request brought it. */
let origin: http.Server;
let base: string;
const seen: http.IncomingHttpHeaders[] = [];

function serve(req: http.IncomingMessage, res: http.ServerResponse): void {
  seen.push(req.headers);
  switch (req.url) {
    case '/cat.png':
      res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'max-age=60' });
      res.end(PNG);
      return;
    case '/clip.mp4': {
      const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
      if (range) {
        const [start, end] = [Number(range[1]), Number(range[2])];
        res.writeHead(206, {
          'content-type': 'video/mp4',
          'content-range': `bytes ${start}-${end}/${VIDEO.length}`,
          'accept-ranges': 'bytes',
        });
        res.end(VIDEO.subarray(start, end + 1));
      } else {
        res.writeHead(200, { 'content-type': 'video/mp4', 'accept-ranges': 'bytes' });
        res.end(VIDEO);
      }
      return;
    }
    case '/page.png':
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<script>alert(1)</script>');
      return;
    case '/declared-huge.png':
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(MAX_BYTES + 1) });
      res.end(Buffer.alloc(MAX_BYTES + 1));
      return;
    case '/endless.png': {
      // No length announced: the proxy finds out while passing it on.
      res.writeHead(200, { 'content-type': 'image/png' });
      const chunk = Buffer.alloc(4096, 1);
      let sent = 0;
      const timer = setInterval(() => {
        if (sent > 20 * MAX_BYTES || res.destroyed) return clearInterval(timer);
        res.write(chunk);
        sent += chunk.length;
      }, 1);
      res.on('close', () => clearInterval(timer));
      return;
    }
    case '/slow.png':
      // Never answers: the deadline has to end it (the socket closes with the server).
      return;
    case '/moved.png':
      res.writeHead(302, { location: '/cat.png' });
      res.end();
      return;
    case '/to-metadata.png':
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data.png' });
      res.end();
      return;
    default:
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('no');
  }
}

let org: Organization;

beforeAll(async () => {
  origin = http.createServer(serve);
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  org = await organization({
    env: {
      CAMO_URI: '/external_content/',
      CAMO_KEY: KEY,
      CAMO_MAX_SIZE_MIB: '0.01',
      CAMO_TIMEOUT_SECONDS: '0.5',
      OUTGOING_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    },
  });
});
afterAll(async () => {
  await org.close();
  origin.closeAllConnections();
  await new Promise((resolve) => origin.close(resolve));
});

/** What Zulip's generate_camo_url gives for `url`. */
function camoPath(url: string, key = KEY): string {
  const digest = createHmac('sha1', key).update(url).digest('hex');
  return `/external_content/${digest}/${Buffer.from(url).toString('hex')}`;
}

const get = (path: string) => request(org.t.app).get(path);

describe('Markdown with CAMO_URI', () => {
  it('loads external images, videos and YouTube thumbnails through the proxy', async () => {
    const image = `${base}/cat.png`;
    const video = `${base}/clip.mp4`;
    const res = await org.as(org.owner).post('/messages/render', {
      content: `${image}\n\n${video}\n\nhttps://www.youtube.com/watch?v=hx1mjT73xYE`,
    });
    expect(res.status).toBe(200);
    const html = res.body.rendered as string;
    expect(html).toContain(
      `<div class="message_inline_image"><a href="${image}"><img src="${camoPath(image)}"></a></div>`,
    );
    expect(html).toContain(`<video preload="metadata" src="${camoPath(video)}"></video>`);
    expect(html).toContain(
      `<img src="${camoPath('https://i.ytimg.com/vi/hx1mjT73xYE/mqdefault.jpg')}">`,
    );
    // The remote host appears only as the links readers may click.
    expect(html).not.toMatch(new RegExp(`src="${base}`));
  });

  it('leaves uploads and the organization own URLs alone', async () => {
    const own = `http://${org.host}/static/images/logo.png`;
    const res = await org.as(org.owner).post('/messages/render', {
      content: `[a](/user_uploads/1/ab/cat.png)\n\n${own}`,
    });
    const html = res.body.rendered as string;
    expect(html).toContain('<img src="/user_uploads/1/ab/cat.png">');
    expect(html).toContain(`/thumbnail?url=${encodeURIComponent(own)}`);
    expect(html).not.toContain('/external_content/');
  });
});

describe('GET /external_content/<digest>/<hex url>', () => {
  it('streams a signed image without the reader cookies, credentials or address', async () => {
    seen.length = 0;
    const res = await get(camoPath(`${base}/cat.png`))
      .set('Cookie', 'sessionid=secret')
      .set('Authorization', org.owner.auth)
      .buffer(true)
      .parse((r, done) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['cache-control']).toBe('max-age=60');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(Buffer.compare(res.body as Buffer, PNG)).toBe(0);
    expect(seen).toHaveLength(1);
    expect(seen[0].cookie).toBeUndefined();
    expect(seen[0].authorization).toBeUndefined();
    expect(seen[0]['x-forwarded-for']).toBeUndefined();
  });

  it('passes ranges on, so videos can seek', async () => {
    const res = await get(camoPath(`${base}/clip.mp4`)).set('Range', 'bytes=10-19');
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 10-19/${VIDEO.length}`);
    expect(res.headers['content-type']).toBe('video/mp4');
  });

  it('follows a redirect to another allowed address', async () => {
    const res = await get(camoPath(`${base}/moved.png`));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
  });

  it('refuses forged, altered and malformed paths without fetching anything', async () => {
    seen.length = 0;
    const url = `${base}/cat.png`;
    const forged = camoPath(url, 'another-key-0123456789');
    const [digest, hex] = camoPath(url).split('/').slice(2);
    const altered = `/external_content/${digest}/${Buffer.from(`${base}/clip.mp4`).toString('hex')}`;
    for (const path of [
      forged,
      altered,
      `/external_content/${digest}/zz`,
      `/external_content/abc/${hex}`,
    ]) {
      const res = await get(path);
      expect({ path, status: res.status, body: res.body }).toMatchObject({
        path,
        status: 403,
        body: { result: 'error', msg: 'Not a valid URL.' },
      });
    }
    expect(seen).toHaveLength(0);
  });

  it('refuses what is not media, too large, too slow or not public', async () => {
    const cases: [string, number, string][] = [
      [`${base}/page.png`, 415, 'Not an image, video or audio file'],
      [`${base}/missing.png`, 404, 'Not Found'],
      [`${base}/declared-huge.png`, 502, 'The remote content is too large'],
      [`${base}/slow.png`, 504, 'The remote server did not answer in time'],
      [`${base}/to-metadata.png`, 403, 'The address is not public'],
      ['http://10.1.2.3/x.png', 403, 'The address is not public'],
    ];
    for (const [url, status, msg] of cases) {
      const res = await get(camoPath(url));
      expect({ url, status: res.status, msg: res.body.msg }).toEqual({ url, status, msg });
    }
  });

  it('cuts off a body that grows past CAMO_MAX_SIZE_MIB', async () => {
    const server = org.t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    const received = await new Promise<{ bytes: number; complete: boolean }>((resolve) => {
      http.get({ host: '127.0.0.1', port, path: camoPath(`${base}/endless.png`) }, (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () => resolve({ bytes, complete: res.complete }));
        res.on('error', () => resolve({ bytes, complete: false }));
        res.on('aborted', () => resolve({ bytes, complete: false }));
      });
    });
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    expect(received.complete).toBe(false);
    expect(received.bytes).toBeLessThanOrEqual(MAX_BYTES);
  });

  it('does not exist without CAMO_URI, and without an allowlist loopback is not public', async () => {
    const plain = await organization();
    const strict = await organization({
      env: { CAMO_URI: '/external_content/', CAMO_KEY: KEY },
    });
    try {
      const off = await request(plain.t.app).get(camoPath(`${base}/cat.png`));
      expect(off.status).toBe(404);
      const rendered = await plain.as(plain.owner).post('/messages/render', {
        content: `${base}/cat.png`,
      });
      expect(rendered.body.rendered).toContain('/thumbnail?url=');
      const denied = await request(strict.t.app).get(camoPath(`${base}/cat.png`));
      expect(denied.status).toBe(403);
      expect(denied.body.msg).toBe('The address is not public');
    } finally {
      await plain.close();
      await strict.close();
    }
  });
});

describe('CAMO_KEY rotation', () => {
  it('serves links signed with a CAMO_KEY_PREVIOUS key and signs new ones with CAMO_KEY', async () => {
    const NEW_KEY = 'camo-new-key-9876543210';
    const env = { CAMO_URI: '/external_content/', OUTGOING_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' };
    const rotated = await organization({
      env: { ...env, CAMO_KEY: NEW_KEY, CAMO_KEY_PREVIOUS: ` ${KEY} ,` },
    });
    const done = await organization({ env: { ...env, CAMO_KEY: NEW_KEY } });
    try {
      const image = `${base}/cat.png`;
      const old = await request(rotated.t.app).get(camoPath(image, KEY));
      expect(old.status).toBe(200);
      expect(old.headers['content-type']).toBe('image/png');
      const current = await request(rotated.t.app).get(camoPath(image, NEW_KEY));
      expect(current.status).toBe(200);
      const rendered = await rotated.as(rotated.owner).post('/messages/render', { content: image });
      expect(rendered.body.rendered).toContain(camoPath(image, NEW_KEY));
      expect(rendered.body.rendered).not.toContain(camoPath(image, KEY));
      const other = await request(rotated.t.app).get(camoPath(image, 'a-third-key-0123456789'));
      expect(other.status).toBe(403);
      // Once CAMO_KEY_PREVIOUS is dropped, the old links end.
      const ended = await request(done.t.app).get(camoPath(image, KEY));
      expect(ended.status).toBe(403);
    } finally {
      await rotated.close();
      await done.close();
    }
  });
});
