import { Queue } from 'bullmq';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Client } from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import request from 'supertest';
import { createApiApp } from '../../apps/api/app';
import { jobHandlers } from '../../apps/worker/handlers';
import { startWorkers, type RunningWorkers } from '../../apps/worker/start-workers';
import type { AppContext } from '../../libs/core/context';
import { createDb } from '../../libs/db/client';
import { applyMigrations, listMigrations, migrationsDir } from '../../libs/db/migrate';
import { QueueName } from '../../libs/jobs/job-catalogue';
import { bullPrefix, sharedBullPrefix } from '../../libs/jobs/queues';
import { databaseUrl, withAdminClient } from '../databases';
import type { TestUser } from '../factories';
import { organization, type Organization } from '../organization';
import { startUploadBackend, type RunningBackend } from '../upload-backends';
import { waitFor } from '../worker-factories';

/**
 * Issue 46, point 1: an installation of 0.1.0 (its migrations, its rows, a delivery job queued
 * as 0.1.0 queued it) upgraded to this tree by what an operator runs: `migrate`, then the new
 * workers. Nothing is lost and the scheduled message goes out at its time without any manual
 * step.
 *
 * The rows are made by this tree's domain actions in a database at HEAD's schema, then copied,
 * column by column, into a database built from 0.1.0's migrations alone (the columns both have;
 * the tables 0.1.0 did not have are left behind, as 0.1.0 never wrote them).
 */

/** The last migration 0.1.0 shipped (tag v0.1.0; CHANGELOG.md). */
const LAST_OF_0_1_0 = '20261123180000_principal_change_notify';

let org: Organization<'alice' | 'bob', 'planning'>;
let alice: TestUser;
let bob: TestUser;
let backend: RunningBackend;
let oldUrl: string;
let upgraded: AppContext & { close(): Promise<void> };
let workers: RunningWorkers | null = null;
const oldQueues: Queue[] = [];
const oldMigrations = mkdtempSync(path.join(tmpdir(), 'migrations-0.1.0-'));

beforeAll(async () => {
  backend = await startUploadBackend('local');
  org = await organization({
    env: backend.env,
    members: { alice: { password: 'correct horse battery' }, bob: 'member' },
    channels: { planning: ['owner', 'alice', 'bob'] },
  });
  ({ alice, bob } = org.users);
  oldUrl = databaseUrl(`${org.t.databaseName}_v010`);
});
afterAll(async () => {
  await workers?.close();
  await Promise.all(oldQueues.map((q) => q.close()));
  await upgraded?.close();
  await org?.close();
  await backend?.close();
  rmSync(oldMigrations, { recursive: true, force: true });
});

async function connect(url: string): Promise<Client> {
  const client = new Client({ connectionString: url });
  await client.connect();
  return client;
}

/** Copies every table of `to` from `from`, with the columns both have. */
async function copyRows(fromUrl: string, toUrl: string): Promise<void> {
  const from = await connect(fromUrl);
  const to = await connect(toUrl);
  try {
    const columns = async (c: Client) =>
      (
        await c.query<{ t: string; c: string }>(
          `SELECT table_name AS t, column_name AS c FROM information_schema.columns
           WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'
           ORDER BY table_name, ordinal_position`,
        )
      ).rows;
    const source = new Set((await columns(from)).map((r) => `${r.t}.${r.c}`));
    const byTable = new Map<string, string[]>();
    for (const { t, c } of await columns(to)) {
      if (!source.has(`${t}.${c}`)) continue;
      byTable.set(t, [...(byTable.get(t) ?? []), `"${c}"`]);
    }
    // Foreign keys are checked by triggers, which replica mode skips while the tables fill.
    await to.query(`SET session_replication_role = replica`);
    for (const [table, cols] of byTable) {
      const list = cols.join(', ');
      await pipeline(
        from.query(copyTo(`COPY (SELECT ${list} FROM "${table}") TO STDOUT`)),
        to.query(copyFrom(`COPY "${table}" (${list}) FROM STDIN`)),
      );
    }
    await to.query(`SET session_replication_role = DEFAULT`);
    const serials = await to.query<{ t: string; c: string; s: string }>(
      `SELECT table_name AS t, column_name AS c,
              pg_get_serial_sequence(quote_ident(table_name), column_name) AS s
       FROM information_schema.columns
       WHERE table_schema = 'public' AND column_default LIKE 'nextval(%'`,
    );
    for (const { t, c, s } of serials.rows) {
      await to.query(`SELECT setval($1, GREATEST((SELECT max("${c}") FROM "${t}"), 1))`, [s]);
    }
  } finally {
    await from.end();
    await to.end();
  }
}

/** What must survive the upgrade, read with plain SQL (the same on both schemas). */
async function snapshot(url: string) {
  const c = await connect(url);
  try {
    const q = async (sql: string) => (await c.query(sql)).rows;
    return {
      users: await q(
        `SELECT id, email, full_name, role, password_hash, api_key_hash, is_active FROM users ORDER BY id`,
      ),
      messages: await q(
        `SELECT id, sender_id, recipient_id, subject, content FROM messages ORDER BY id`,
      ),
      userMessages: await q(`SELECT user_id, message_id, flags FROM user_messages ORDER BY 1, 2`),
      attachments: await q(`SELECT id, path_id, size, owner_id FROM attachments ORDER BY id`),
      attachmentMessages: await q(`SELECT * FROM attachment_messages ORDER BY 1, 2`),
      subscriptions: await q(
        `SELECT user_id, recipient_id, active FROM subscriptions ORDER BY 1, 2`,
      ),
      scheduled: await q(
        `SELECT id, sender_id, content, scheduled_timestamp, delivered FROM scheduled_messages ORDER BY id`,
      ),
    };
  } finally {
    await c.end();
  }
}

it('keeps every row and upload and sends the scheduled message on time', async () => {
  // What users made under 0.1.0.
  const file = await org
    .as(alice)
    .post('/user_uploads')
    .attach('file', Buffer.from('the plan, version 1'), {
      filename: 'plan.txt',
      contentType: 'text/plain',
    });
  expect(file.status).toBe(200);
  const sent: number[] = [];
  for (const [who, form] of [
    [
      alice,
      {
        type: 'stream',
        to: 'planning',
        topic: 'plans',
        content: `See [plan.txt](${file.body.url})`,
      },
    ],
    [bob, { type: 'stream', to: 'planning', topic: 'plans', content: 'Looks good' }],
    [bob, { type: 'direct', to: JSON.stringify([alice.user.id]), content: 'Lunch?' }],
  ] as const) {
    const res = await org.as(who).post('/messages', form);
    expect(res.status).toBe(200);
    sent.push(res.body.id as number);
  }
  const dueAt = Math.floor(Date.now() / 1000) + 25;
  const scheduled = await org.as(alice).post('/scheduled_messages', {
    type: 'stream',
    to: org.channels.planning.id,
    topic: 'plans',
    content: 'Reminder: the plan is due',
    scheduled_delivery_timestamp: dueAt,
  });
  expect(scheduled.status).toBe(200);
  const scheduledId = scheduled.body.scheduled_message_id as number;

  // The database as 0.1.0 left it: its migrations only, filled with those rows.
  for (const m of listMigrations().filter((m) => m.name <= LAST_OF_0_1_0)) {
    cpSync(path.join(migrationsDir(), m.name), path.join(oldMigrations, m.name), {
      recursive: true,
    });
  }
  await withAdminClient((c) => c.query(`CREATE DATABASE "${new URL(oldUrl).pathname.slice(1)}"`));
  expect(await applyMigrations(oldUrl, () => undefined, oldMigrations)).toHaveLength(6);
  await copyRows(org.t.config.databaseUrl, oldUrl);
  const before = await snapshot(oldUrl);
  expect(before.messages).toHaveLength(await org.t.db.message.count());
  expect(before.attachments).toHaveLength(1);
  expect(before.scheduled).toEqual([
    expect.objectContaining({ id: scheduledId, delivered: false }),
  ]);

  // 0.1.0 queued the delivery in Redis only, under the prefix all its queues shared.
  const oldQueue = new Queue(QueueName.SCHEDULED_MESSAGES, {
    connection: org.t.redis,
    prefix: sharedBullPrefix(org.t.config.redisPrefix),
  });
  oldQueues.push(oldQueue);
  await oldQueue.add(
    'deliver-scheduled-message',
    { scheduledMessageId: scheduledId },
    {
      jobId: `sched-${scheduledId}`,
      delay: dueAt * 1000 - Date.now(),
      attempts: 5,
      backoff: { type: 'exponential', delay: 1000 },
    },
  );

  // The upgrade: `migrate`, then the new release's workers and API.
  const applied = await applyMigrations(oldUrl);
  expect(applied).toEqual(
    listMigrations()
      .map((m) => m.name)
      .filter((name) => name > LAST_OF_0_1_0),
  );
  expect(await snapshot(oldUrl)).toEqual(before);

  const db = createDb(oldUrl, { maxConnections: 5 });
  upgraded = {
    db,
    redis: org.t.redis,
    log: org.t.log,
    config: { ...org.t.config, databaseUrl: oldUrl },
    close: () => db.$disconnect(),
  };
  workers = startWorkers(upgraded, jobHandlers, { relay: { intervalMs: 50 } });
  await workers.releaseSteps;
  // The worker moved the job itself: nothing is left under the old prefix.
  expect(await oldQueue.getDelayedCount()).toBe(0);
  const newQueue = new Queue(QueueName.SCHEDULED_MESSAGES, {
    connection: org.t.redis,
    prefix: bullPrefix(org.t.config.redisPrefix, QueueName.SCHEDULED_MESSAGES),
  });
  oldQueues.push(newQueue);
  expect(await newQueue.getJob(`sched-${scheduledId}`)).toBeTruthy();

  const delivered = await waitFor(
    async () =>
      (await db.scheduledMessage.findUniqueOrThrow({ where: { id: scheduledId } }))
        .deliveredMessageId,
    60_000,
    200,
  );
  const message = await db.message.findUniqueOrThrow({ where: { id: delivered } });
  expect(message.content).toBe('Reminder: the plan is due');
  const lateMs = message.dateSent.getTime() - dueAt * 1000;
  expect(lateMs).toBeGreaterThanOrEqual(0);
  expect(lateMs).toBeLessThan(5000);
  // Sent once, though both the moved job and the outbox row's job run.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(await db.message.count({ where: { content: 'Reminder: the plan is due' } })).toBe(1);

  // Clients of the upgraded server: keys, passwords, messages and the upload as before.
  const app = createApiApp(upgraded);
  const as = (who: TestUser, method: 'get' | 'post', url: string) =>
    request(app)[method](url).set('Host', org.host).set('Authorization', who.auth);
  const me = await as(alice, 'get', '/api/v1/users/me');
  expect(me.body).toMatchObject({ user_id: alice.user.id, email: alice.email });
  const key = await request(app)
    .post('/api/v1/fetch_api_key')
    .set('Host', org.host)
    .type('form')
    .send({ username: alice.email, password: 'correct horse battery' });
  expect(key.body).toMatchObject({ result: 'success', api_key: alice.apiKey });
  const history = await as(bob, 'get', '/api/v1/messages').query({
    anchor: 'newest',
    num_before: 20,
    num_after: 0,
    apply_markdown: 'false',
  });
  expect(history.status).toBe(200);
  const ids = (history.body.messages as { id: number }[]).map((m) => m.id);
  expect(ids).toEqual(expect.arrayContaining([...sent, delivered]));
  const download = await as(bob, 'get', file.body.url as string);
  expect(download.status).toBe(200);
  expect(download.text).toBe('the plan, version 1');
}, 120000);
