import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import type { Realm } from '../../../generated/prisma/client';
import { jobsWritten } from '../../../test/jobs';
import { organization, type Organization } from '../../../test/organization';
import { eventsAfter, ofType, outboxMark } from '../../../test/outbox';
import { Jobs, type EmbedLinksPayload } from '../../jobs';
import { renderMarkdown } from '../../markdown';
import { markdownContextFor } from '../markdown-context';
import { editMessage } from '../messages/edit-message';
import { sendMessage } from '../messages/send-message';
import { embedLinks } from './embed-links';
import { fetchPage } from './fetch-page';
import { previewCacheKey } from './link-preview';
import { previewOfPage } from './parse-page';

/**
 * Link previews (Zulip's embed_links): a loopback site with an Open Graph page and pages that
 * must give nothing: too big, too slow, not HTML, failing, redirecting in circles, or private.
 */
const ARTICLE = `<!doctype html><html><head>
  <title>Ignored: og:title wins</title>
  <meta property="og:title" content="Launch &amp; learn">
  <meta property="og:description" content="How the team shipped it <fast>.">
  <meta property="og:image" content="/cover.png">
  <script>document.write('<meta property="og:title" content="not this">')</script>
</head><body><h1>Heading</h1><p>Body</p></body></html>`;

interface Site {
  url: string;
  hits: Map<string, number>;
  close(): Promise<void>;
}

async function startSite(): Promise<Site> {
  const hits = new Map<string, number>();
  const html = (res: http.ServerResponse, body: string) =>
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path === '/article' || path === '/again') return html(res, ARTICLE);
    if (path === '/plain') {
      return html(res, '<title>Plain</title><meta name="description" content="No image here">');
    }
    if (path === '/huge') return html(res, `<title>Huge</title>${'x'.repeat(200 * 1024)}`);
    if (path === '/endless') {
      // No declared length: the body is cut off as it grows past the limit.
      res.writeHead(200, { 'content-type': 'text/html' });
      let sent = 0;
      const more = () => {
        if (res.destroyed) return;
        if (sent++ === 20) return void res.end();
        res.write('y'.repeat(16 * 1024));
        setImmediate(more);
      };
      return more();
    }
    if (path === '/slow') return void setTimeout(() => html(res, ARTICLE), 3000);
    if (path === '/binary') {
      return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(ARTICLE);
    }
    if (path === '/broken') return res.writeHead(500).end(ARTICLE);
    if (path === '/moved') return res.writeHead(302, { location: '/article' }).end();
    if (path === '/circle') return res.writeHead(302, { location: '/circle' }).end();
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let org: Organization<'alice' | 'bob' | 'robot', 'news'>;
let site: Site;
let realm: Realm;

beforeAll(async () => {
  org = await organization({
    // The site is on loopback, which the egress policy refuses unless the operator allows it.
    env: {
      OUTGOING_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      URL_PREVIEW_TIMEOUT_SECONDS: '0.5',
      URL_PREVIEW_MAX_SIZE_KIB: '100',
    },
    members: { alice: 'member', bob: 'member', robot: { botOf: 'alice' } },
    channels: { news: ['alice', 'bob', 'robot'] },
  });
  realm = await org.t.db.realm.update({
    where: { id: org.realm.id },
    data: { inlineUrlEmbedPreview: true },
  });
  site = await startSite();
});
afterAll(async () => {
  await site?.close();
  await org?.close();
});

const say = (content: string, who = org.users.alice) =>
  sendMessage(org.t, {
    sender: who.user,
    realm,
    type: 'stream',
    to: org.channels.news.id,
    topic: 'links',
    content,
    clientName: 'website',
  });

/** The embed job a message's send wrote. */
async function jobFor(messageId: number): Promise<EmbedLinksPayload | undefined> {
  return (await jobsWritten(org.t, Jobs.embedLinks)).find((j) => j.messageId === messageId);
}

const rendered = async (id: number) =>
  (await org.t.db.message.findUniqueOrThrow({ where: { id } })).renderedContent;

describe('link previews', () => {
  it('a sent link is fetched by the job, rendered as Zulip does, and announced', async () => {
    const url = `${site.url}/article`;
    const { id } = await say(`Read ${url}`);
    const job = await jobFor(id);
    expect(job?.urls).toEqual([url]);
    const before = await rendered(id);
    expect(before).toBe(`<p>Read <a href="${url}">${url}</a></p>`);

    const mark = await outboxMark(org.t);
    await embedLinks(org.t, job!);
    expect(await rendered(id)).toBe(
      `${before}\n<div class="message_embed"><a class="message_embed_image" href="${url}" ` +
        `style="background-image: url(&quot;${site.url}/cover.png&quot;)"></a>` +
        `<div class="data-container"><div class="message_embed_title"><a href="${url}" ` +
        `title="Launch &amp; learn">Launch &amp; learn</a></div>` +
        `<div class="message_embed_description">How the team shipped it &lt;fast&gt;.</div>` +
        `</div></div>`,
    );
    // One event per set of flags: the sender's copy is read, the others' not.
    const updates = ofType(await eventsAfter(org.t, mark), 'update_message');
    const html = await rendered(id);
    for (const { event } of updates) {
      expect(event).toMatchObject({
        user_id: null,
        message_id: id,
        message_ids: [id],
        rendering_only: true,
        content: `Read ${url}`,
        rendered_content: html,
      });
    }
    const { alice, bob, robot } = org.users;
    expect(updates.map((u) => [u.event.flags, u.users.sort()])).toEqual([
      [['read'], [alice.user.id]],
      [[], [bob.user.id, robot.user.id].sort()],
    ]);
    // No edit: no history and no edit time.
    const row = await org.t.db.message.findUniqueOrThrow({ where: { id } });
    expect(row.lastEditTime).toBeNull();
    expect(row.editHistory).toBeNull();
  });

  it('keeps each page in Redis: a second message linking it fetches nothing', async () => {
    const url = `${site.url}/again`;
    const first = await say(`one ${url}`);
    await embedLinks(org.t, (await jobFor(first.id))!);
    const second = await say(`two ${url}`);
    await embedLinks(org.t, (await jobFor(second.id))!);
    expect(site.hits.get('/again')).toBe(1);
    expect(await rendered(second.id)).toContain('class="message_embed"');
    const ttl = await org.t.redis.ttl(previewCacheKey(org.t, url));
    expect(ttl).toBeGreaterThan(86_000);
  });

  it('a job for content since edited writes nothing; the edit owes a job of its own', async () => {
    const { id } = await say(`see ${site.url}/moved`);
    const job = (await jobFor(id))!;
    await editMessage(org.t, {
      user: org.users.alice.user,
      realm,
      messageId: id,
      content: `see ${site.url}/article instead`,
      propagateMode: 'change_one',
      sendNotificationToOldThread: false,
      sendNotificationToNewThread: false,
    });
    const edited = await rendered(id);
    const mark = await outboxMark(org.t);
    await embedLinks(org.t, job);
    expect(await rendered(id)).toBe(edited);
    expect(ofType(await eventsAfter(org.t, mark), 'update_message')).toEqual([]);
    const jobs = (await jobsWritten(org.t, Jobs.embedLinks)).filter((j) => j.messageId === id);
    expect(jobs.map((j) => j.urls)).toEqual([[`${site.url}/moved`], [`${site.url}/article`]]);
  });

  it('follows a redirect, and previews the page it ends at', async () => {
    const page = await fetchPage(org.t.config, `${site.url}/moved`);
    expect(page.ok && page.url.href).toBe(`${site.url}/article`);
  });

  it('refuses pages too big, too slow, not HTML, failing or redirecting in circles', async () => {
    const reasons: Record<string, string> = {
      huge: 'too-large',
      endless: 'too-large',
      slow: 'timeout',
      binary: 'not-html',
      broken: 'status',
      circle: 'redirects',
    };
    for (const [path, reason] of Object.entries(reasons)) {
      const page = await fetchPage(org.t.config, `${site.url}/${path}`);
      expect({ path, reason: page.ok ? 'ok' : page.reason }).toEqual({ path, reason });
    }
    expect(await fetchPage(org.t.config, 'ftp://example.com/x')).toEqual({
      ok: false,
      reason: 'invalid-url',
    });
  });

  it('a message linking only refused pages keeps its rendering, and the job ends quickly', async () => {
    const links = ['huge', 'endless', 'slow', 'binary', 'broken', 'circle', 'plain'].map(
      (p) => `${site.url}/${p}`,
    );
    const { id } = await say(links.join('\n'));
    const before = await rendered(id);
    const mark = await outboxMark(org.t);
    const started = Date.now();
    await embedLinks(org.t, (await jobFor(id))!);
    // The slow page costs its 0.5 s deadline, no more.
    expect(Date.now() - started).toBeLessThan(2500);
    expect(await rendered(id)).toBe(before);
    expect(ofType(await eventsAfter(org.t, mark), 'update_message')).toEqual([]);
  });

  it('refuses loopback and private addresses, after name resolution, unless allowed', async () => {
    const strict = { ...org.t.config, outgoingWebhookAllowedHosts: [] };
    expect(await fetchPage(strict, `${site.url}/article`)).toEqual({
      ok: false,
      reason: 'denied',
    });
    // A public-looking name that resolves to loopback (DNS rebinding) is refused as well.
    const port = new URL(site.url).port;
    const toLoopback: LookupFunction = (_host, options, callback) =>
      options.all
        ? callback(null, [{ address: '127.0.0.1', family: 4 }])
        : callback(null, '127.0.0.1', 4);
    const named = `http://news.example.com:${port}/article`;
    expect(await fetchPage(strict, named, { lookup: toLoopback })).toEqual({
      ok: false,
      reason: 'denied',
    });
    expect(await fetchPage(strict, 'http://169.254.169.254/latest/meta-data/')).toEqual({
      ok: false,
      reason: 'denied',
    });
    // Through the job: the message stays as it was, and the server saw no request.
    const url = `${site.url}/article?private`;
    const { id } = await say(url);
    const before = await rendered(id);
    await embedLinks({ ...org.t, config: strict }, (await jobFor(id))!);
    expect(await rendered(id)).toBe(before);
    expect(site.hits.get('/article?private')).toBeUndefined();
  });

  it('no job when the organization or the server has previews off, or a bot sends', async () => {
    const url = `${site.url}/article?off`;
    await org.t.db.realm.update({
      where: { id: realm.id },
      data: { inlineUrlEmbedPreview: false },
    });
    realm = { ...realm, inlineUrlEmbedPreview: false };
    const realmOff = await say(url);
    realm = { ...realm, inlineUrlEmbedPreview: true };
    await org.t.db.realm.update({ where: { id: realm.id }, data: { inlineUrlEmbedPreview: true } });
    const byBot = await say(url, org.users.robot);
    for (const { id } of [realmOff, byBot]) expect(await jobFor(id)).toBeUndefined();
    // INLINE_URL_EMBED_PREVIEW=false: no link is ever listed for a preview, so no job either.
    const off = { ...org.t.config, urlPreview: { ...org.t.config.urlPreview, enabled: false } };
    const serverOff = await renderMarkdown(url, await markdownContextFor(org.t.db, off, realm));
    expect(serverOff.linksForPreview).toEqual([]);
    const on = await renderMarkdown(url, await markdownContextFor(org.t.db, org.t.config, realm));
    expect(on.linksForPreview).toEqual([url]);
  });

  it('names the content it was written for: a SHA-256 of the content as stored', async () => {
    const content = `digest ${site.url}/article`;
    const { id } = await say(content);
    const job = (await jobFor(id))!;
    expect(job.contentSha256).toBe(createHash('sha256').update(content).digest('hex'));
  });
});

describe('what gets a preview', () => {
  const context = async () => ({
    ...(await markdownContextFor(org.t.db, org.t.config, realm)),
    camoUrl: (u: string) => `/external_content/x/${Buffer.from(u).toString('hex')}`,
  });

  it('web pages outside quotes, not images, videos, YouTube or the organization itself', async () => {
    const own = `http://${org.host}/#narrow/channel/1`;
    const r = await renderMarkdown(
      [
        'https://example.com/page and https://example.com/page again',
        'https://example.com/cat.png https://example.com/clip.mp4',
        'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
        own,
        '> https://quoted.example.com/',
        '[named](https://named.example.com/)',
      ].join('\n\n'),
      await context(),
    );
    expect(r.linksForPreview).toEqual(['https://example.com/page', 'https://named.example.com/']);
  });

  it('loads the image through the camo proxy, and shows nothing without an image', async () => {
    const data = new Map([
      ['https://a.example/', { title: 'A', description: null, image: 'https://a.example/i.png' }],
      ['https://b.example/', { title: 'B', description: 'no image', image: null }],
    ]);
    const r = await renderMarkdown('https://a.example/ https://b.example/', {
      ...(await context()),
      urlEmbedData: data,
    });
    const hex = Buffer.from('https://a.example/i.png').toString('hex');
    expect(r.html).toContain(`url(&quot;/external_content/x/${hex}&quot;)`);
    expect(r.html.match(/message_embed"/g)).toHaveLength(1);
    expect(r.linksForPreview).toEqual([]);
  });

  it("reads a page's own title, description and image where it has no Open Graph tags", () => {
    const page = new URL('https://example.com/a/b');
    expect(
      previewOfPage(
        `<html><head><title> A  page </title></head><body><h1>H</h1><img src="../i.jpg">` +
          `<p>First   paragraph</p></body></html>`,
        page,
      ),
    ).toEqual({
      title: 'A page',
      description: 'First paragraph',
      image: 'https://example.com/i.jpg',
    });
    expect(
      previewOfPage('<meta property="og:image" content="javascript:alert(1)">', page).image,
    ).toBe(null);
    const long = previewOfPage(`<title>${'t'.repeat(300)}</title>`, page).title!;
    expect(long.length).toBe(200);
  });
});
