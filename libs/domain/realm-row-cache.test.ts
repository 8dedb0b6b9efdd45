import type { Express } from 'express';
import request from 'supertest';
import { createApiApp } from '../../apps/api/app';
import type { TestContext } from '../../test/harness';
import { type Organization, organization } from '../../test/organization';
import { attachPrincipalCache } from '../http/principal-cache';
import { withoutTriggers } from '../../test/without-triggers';
import { waitFor } from '../../test/worker-factories';
import { RealmRowCache, type RealmMarkup } from './realm-row-cache';

const NONE: RealmMarkup = { emoji: [], linkifiers: [] };
const markupCache = (listening: boolean) =>
  new RealmRowCache<RealmMarkup>('markup', () => listening);

describe('RealmRowCache', () => {
  it('reads every time while its feed does not listen', async () => {
    const cache = markupCache(false);
    const read = jest.fn(async () => NONE);
    await cache.get(1, { key: '', read });
    await cache.get(1, { key: '', read });
    expect(read).toHaveBeenCalledTimes(2);
  });

  it('keeps a read while listening, and forgets it on a change of its kind or a reset', async () => {
    const cache = markupCache(true);
    const read = jest.fn(async () => NONE);
    await cache.get(1, { key: '', read });
    await cache.get(1, { key: '', read });
    expect(read).toHaveBeenCalledTimes(1);
    cache.change({ kind: 'channel', id: 1 });
    cache.change({ kind: 'markup', id: 2 });
    await cache.get(1, { key: '', read });
    expect(read).toHaveBeenCalledTimes(1);
    cache.change({ kind: 'markup', id: 1 });
    await cache.get(1, { key: '', read });
    expect(read).toHaveBeenCalledTimes(2);
    cache.reset();
    await cache.get(1, { key: '', read });
    expect(read).toHaveBeenCalledTimes(3);
  });

  it('reads again after a minute, however quiet the feed', async () => {
    const cache = markupCache(true);
    const read = jest.fn(async () => NONE);
    const now = jest.spyOn(Date, 'now').mockReturnValue(1_000_000);
    try {
      await cache.get(1, { key: '', read });
      now.mockReturnValue(1_059_000);
      await cache.get(1, { key: '', read });
      expect(read).toHaveBeenCalledTimes(1);
      now.mockReturnValue(1_061_000);
      await cache.get(1, { key: '', read });
      expect(read).toHaveBeenCalledTimes(2);
    } finally {
      now.mockRestore();
    }
  });

  it('keeps neither a read that raced with a change nor one `keep` refuses', async () => {
    const cache = markupCache(true);
    let finish!: (markup: RealmMarkup) => void;
    const first = cache.get(1, {
      key: '',
      read: () => new Promise((resolve) => (finish = resolve)),
    });
    cache.change({ kind: 'markup', id: 1 });
    finish(NONE);
    await first;
    const read = jest.fn(async () => NONE);
    await cache.get(1, { key: '', read });
    expect(read).toHaveBeenCalledTimes(1);
    await cache.get(1, { key: 'refused', read, keep: () => false });
    await cache.get(1, { key: 'refused', read, keep: () => false });
    expect(read).toHaveBeenCalledTimes(3);
  });
});

// Sends as production runs them: the markup remembered while PostgreSQL reports its changes.
describe('rendering with the remembered emoji and linkifiers', () => {
  let t: TestContext;
  let app: Express;
  let org: Organization<'admin' | 'hamlet', 'Denmark'>;
  let stopFeed: () => Promise<void>;

  beforeAll(async () => {
    org = await organization({
      members: { admin: 'administrator', hamlet: 'member' },
      channels: { Denmark: ['admin', 'hamlet'] },
    });
    ({ t } = org);
    stopFeed = await attachPrincipalCache(t, { ttlSeconds: 300, unfedTtlSeconds: 0 });
    app = createApiApp(t);
  });
  afterAll(async () => {
    await stopFeed();
    await org.close();
  });

  const api = (who: { auth: string }) => ({
    post: (path: string, form: Record<string, string>) =>
      request(app)
        .post(`/api/v1${path}`)
        .set('Host', org.host)
        .set('Authorization', who.auth)
        .type('form')
        .send(form),
  });

  /** The rendered content of a message `hamlet` sends to Denmark. */
  async function rendered(content: string): Promise<string> {
    const sent = await api(org.users.hamlet).post('/messages', {
      type: 'stream',
      to: 'Denmark',
      topic: 'tickets',
      content,
    });
    expect(sent.status).toBe(200);
    const message = await t.db.message.findUniqueOrThrow({ where: { id: sent.body.id } });
    return message.renderedContent ?? '';
  }

  /** A linkifier written where the triggers do not see it, to show what the renderer uses. */
  const addUnseen = (pattern: string, urlTemplate: string) =>
    withoutTriggers(t.db, 'realm_filters', () =>
      t.db.realmFilter.create({ data: { realmId: org.realm.id, pattern, urlTemplate } }),
    );
  /** A linkifier added through the API, as an administrator adds one. */
  async function addLinkifier(pattern: string, urlTemplate: string): Promise<void> {
    const added = await api(org.users.admin).post('/realm/filters', {
      pattern,
      url_template: urlTemplate,
    });
    expect(added.status).toBe(200);
  }
  const until = (check: () => Promise<boolean>) => waitFor(check, 2_000, 20);

  it('renders from memory until PostgreSQL reports a change, then with the new rows', async () => {
    expect(await rendered('see TK-1')).not.toContain('<a');
    await addUnseen('TK-(?P<id>[0-9]+)', 'https://tickets.example/{id}');
    // Not reported: the remembered (empty) list still renders.
    expect(await rendered('see TK-2')).not.toContain('<a');

    // A linkifier added through the API is in the next send's rendering, the unseen one too.
    await addLinkifier('BUG-(?P<id>[0-9]+)', 'https://bugs.example/{id}');
    const both = await rendered('see TK-3 and BUG-4');
    expect(both).toContain('href="https://tickets.example/3"');
    expect(both).toContain('href="https://bugs.example/4"');

    // Another writer (an operator's SQL) removes one: gone from sends within moments.
    await t.db.realmFilter.deleteMany({
      where: { realmId: org.realm.id, pattern: { startsWith: 'TK-' } },
    });
    await until(async () => !(await rendered('see TK-5')).includes('tickets.example'));
  });

  it('renders previews and edits from the same memory', async () => {
    const preview = async (content: string): Promise<string> => {
      const res = await api(org.users.hamlet).post('/messages/render', { content });
      expect(res.status).toBe(200);
      return res.body.rendered as string;
    };
    expect(await preview('see PR-1')).not.toContain('<a');
    await addUnseen('PR-(?P<id>[0-9]+)', 'https://pulls.example/{id}');
    expect(await preview('see PR-2')).not.toContain('<a');
    await addLinkifier('CL-(?P<id>[0-9]+)', 'https://changes.example/{id}');
    expect(await preview('see PR-3')).toContain('href="https://pulls.example/3"');
    const sent = await api(org.users.hamlet).post('/messages', {
      type: 'stream',
      to: 'Denmark',
      topic: 'edits',
      content: 'draft',
    });
    await withoutTriggers(t.db, 'realm_filters', () =>
      t.db.realmFilter.deleteMany({
        where: { realmId: org.realm.id, pattern: { startsWith: 'CL-' } },
      }),
    );
    const edited = await request(app)
      .patch(`/api/v1/messages/${sent.body.id}`)
      .set('Host', org.host)
      .set('Authorization', org.users.hamlet.auth)
      .type('form')
      .send({ content: 'see CL-7' });
    expect(edited.status).toBe(200);
    const message = await t.db.message.findUniqueOrThrow({ where: { id: sent.body.id } });
    // Removed where the triggers do not see it: the remembered linkifier still renders the edit.
    expect(message.renderedContent).toContain('href="https://changes.example/7"');
  });

  it('finds a channel from memory once it has messages, until PostgreSQL reports a change', async () => {
    const send = () =>
      api(org.users.hamlet).post('/messages', {
        type: 'stream',
        to: 'Denmark',
        topic: 'archive',
        content: 'hello',
      });
    // The first message changes the channel (first_message_id); the second is read and kept.
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(200);
    const archive = (isArchived: boolean) =>
      t.db.stream.update({ where: { id: org.channels.Denmark.id }, data: { isArchived } });
    await withoutTriggers(t.db, 'streams', () => archive(true));
    try {
      // Not reported: the remembered (unarchived) channel still takes messages.
      expect((await send()).status).toBe(200);
      // Reported (any change to the organization's channels): refused within moments.
      await t.db.stream.update({
        where: { id: org.channels.Denmark.id },
        data: { description: 'archived' },
      });
      await until(async () => (await send()).status === 400);
    } finally {
      await archive(false);
    }
  });
});
